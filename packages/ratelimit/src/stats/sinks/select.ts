import { readFile } from 'node:fs/promises';
import { SettingsError } from '../../errors.js';
import type { StatSink } from '../sink.js';
import { DogStatsdSink } from './dogstatsd.js';
import { LogSink } from './log-sink.js';
import type { MogrifierSpec } from './mogrifier.js';
import { NullSink } from './null-sink.js';
import { defaultMappingYaml } from './prometheus/default-mapping.js';
import { StatsdMapper } from './prometheus/mapper.js';
import { PrometheusSink } from './prometheus/sink.js';
import type { SinkLogger } from './sink-logger.js';
import { StatsdTcpSink } from './statsd-tcp.js';
import type { Tags } from './tags.js';

/** The stats settings, already parsed (src/settings.ts owns the environment). */
export interface StatSinkSettings {
  readonly disableStats: boolean;
  readonly useStatsd: boolean;
  readonly statsdHost: string;
  readonly statsdPort: number;
  readonly useDogStatsd: boolean;
  readonly dogStatsdMogrifiers: readonly MogrifierSpec[];
  readonly usePrometheus: boolean;
  readonly prometheusAddr: string;
  readonly prometheusPath: string;
  /** Path of a statsd_exporter mapping file; empty for the built-in default mapping. */
  readonly prometheusMapperYaml: string;
  readonly extraTags: Tags;
  /**
   * LOG_LEVEL is debug (or trace). With no other sink the flushed stats are gostats' logging-sink
   * lines, which are debug lines: below that level nothing is written.
   */
  readonly debugLog: boolean;
}

export const tooManySinksMessage =
  'unable to use more than one stats sink at the same time. Set one of USE_DOG_STATSD, USE_STATSD, USE_PROMETHEUS.';

async function mappingText(path: string): Promise<string> {
  if (path === '') return defaultMappingYaml;
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new SettingsError('PROMETHEUS_MAPPER_YAML', `cannot read '${path}': ${(error as Error).message}`);
  }
}

/**
 * Picks the one stat sink the settings ask for. USE_STATSD defaults to true, so enabling DogStatsD
 * or Prometheus also needs USE_STATSD=false; two enabled sinks are a startup error, as in the reference.
 */
export async function createStatSink(settings: StatSinkSettings, logger?: SinkLogger): Promise<StatSink> {
  if (settings.disableStats) return new NullSink();
  const enabled = [settings.useStatsd, settings.useDogStatsd, settings.usePrometheus].filter(Boolean).length;
  if (enabled > 1) throw new SettingsError('USE_STATSD', tooManySinksMessage);
  const extraTags = settings.extraTags;
  const target = {
    host: settings.statsdHost,
    port: settings.statsdPort,
    extraTags,
    ...(logger && { logger }),
  };
  if (settings.useDogStatsd)
    return new DogStatsdSink({ ...target, mogrifiers: settings.dogStatsdMogrifiers });
  if (settings.useStatsd) return new StatsdTcpSink(target);
  if (settings.usePrometheus) {
    const mapper = new StatsdMapper(await mappingText(settings.prometheusMapperYaml));
    const sink = new PrometheusSink({
      addr: settings.prometheusAddr,
      path: settings.prometheusPath,
      mapper,
      extraTags,
      ...(logger && { logger }),
    });
    await sink.listen();
    return sink;
  }
  return settings.debugLog ? new LogSink({ extraTags }) : new NullSink();
}
