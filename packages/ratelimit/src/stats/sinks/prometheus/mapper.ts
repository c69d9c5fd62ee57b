import { parse } from 'yaml';
import { SettingsError } from '../../../errors.js';

/** How a mapped timer is exposed: statsd_exporter's observer_type (alias timer_type). */
export type ObserverType = 'histogram' | 'summary';
export type StatType = 'counter' | 'gauge' | 'timer';

export interface MappedMetric {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly observerType: ObserverType;
  readonly buckets: readonly number[] | undefined;
  readonly help: string;
}

interface Mapping {
  readonly regex: RegExp;
  readonly metricType: StatType | undefined;
  readonly name: string;
  readonly labels: ReadonlyArray<readonly [string, string]>;
  readonly drop: boolean;
  readonly observerType: ObserverType;
  readonly buckets: readonly number[] | undefined;
  readonly help: string;
}

const setting = 'PROMETHEUS_MAPPER_YAML';
const validName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function fail(message: string): never {
  throw new SettingsError(setting, message);
}

type Fields = Record<string, unknown>;

function record(value: unknown, where: string): Fields {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) fail(`${where} must be a mapping`);
  return value as Fields;
}

function text(fields: Fields, key: string, where: string): string | undefined {
  const value = fields[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') fail(`${where}: '${key}' must be a string`);
  return value;
}

function observerType(fields: Fields, where: string): ObserverType | undefined {
  const value = text(fields, 'observer_type', where) ?? text(fields, 'timer_type', where);
  if (value === undefined || value === '' || value === 'default') return undefined;
  if (value !== 'histogram' && value !== 'summary') fail(`${where}: unknown observer_type '${value}'`);
  return value;
}

function buckets(fields: Fields, where: string): number[] | undefined {
  const value = fields.buckets;
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((b) => typeof b === 'number'))
    fail(`${where}: buckets must be numbers`);
  return value as number[];
}

function metricType(fields: Fields, where: string): StatType | undefined {
  const value = text(fields, 'match_metric_type', where);
  if (value === undefined || value === '') return undefined;
  if (value === 'counter' || value === 'gauge') return value;
  if (value === 'observer' || value === 'timer') return 'timer';
  fail(`${where}: unknown match_metric_type '${value}'`);
}

// statsd_exporter globs: `*` stands for any run of characters inside one dot-separated component.
function globToRegex(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('([^.]*)')}$`);
}

function compileMapping(raw: unknown, index: number, defaults: Fields): Mapping {
  const where = `mappings[${index}]`;
  const fields = record(raw, where);
  const match = text(fields, 'match', where);
  if (!match) fail(`${where}: 'match' is required`);
  const matchType = text(fields, 'match_type', where) ?? text(defaults, 'match_type', 'defaults') ?? 'glob';
  let regex: RegExp;
  if (matchType === 'regex') {
    try {
      regex = new RegExp(match);
    } catch (error) {
      fail(`${where}: invalid regex '${match}': ${(error as Error).message}`);
    }
  } else if (matchType === 'glob' || matchType === '') {
    regex = globToRegex(match);
  } else {
    fail(`${where}: unknown match_type '${matchType}'`);
  }
  const action = text(fields, 'action', where) ?? 'map';
  if (action !== 'map' && action !== 'drop') fail(`${where}: unknown action '${action}'`);
  const name = text(fields, 'name', where) ?? '';
  if (action === 'map' && name === '') fail(`${where}: 'name' is required`);
  const labels = Object.entries(record(fields.labels, `${where}.labels`)).map(([key, value]) => {
    if (!validName.test(key) || key.includes(':')) fail(`${where}: invalid label name '${key}'`);
    return [key, String(value)] as const;
  });
  return {
    regex,
    metricType: metricType(fields, where),
    name,
    labels,
    drop: action === 'drop',
    observerType: observerType(fields, where) ?? observerType(defaults, 'defaults') ?? 'summary',
    buckets: buckets(fields, where) ?? buckets(defaults, 'defaults'),
    help: text(fields, 'help', where) ?? '',
  };
}

/** Expands `$1` and `${1}` (Go's regexp.Expand syntax) from a match. */
function expand(template: string, match: RegExpExecArray): string {
  return template.replace(
    /\$(?:\{(\w+)\}|(\d+))/g,
    (_, braced: string | undefined, bare: string | undefined) => {
      return match[Number(braced ?? bare)] ?? '';
    },
  );
}

/** statsd_exporter's name for a stat no mapping matches: every invalid character becomes `_`. */
export function escapeMetricName(name: string): string {
  const escaped = name.replace(/[^a-zA-Z0-9_]/g, '_');
  return /^[0-9]/.test(escaped) ? `_${escaped}` : escaped;
}

/**
 * The statsd_exporter mapping format, evaluated in process: turns a dotted stat name into a
 * Prometheus metric name plus labels. Mappings are tried in file order; the first match wins.
 */
export class StatsdMapper {
  readonly #mappings: readonly Mapping[];
  readonly #defaultObserver: ObserverType;
  readonly #defaultBuckets: readonly number[] | undefined;

  constructor(yamlText: string) {
    let document: unknown;
    try {
      document = parse(yamlText);
    } catch (error) {
      fail(`the mapping file is not valid YAML: ${(error as Error).message}`);
    }
    const root = record(document, 'the mapping file');
    const defaults = record(root.defaults, 'defaults');
    const mappings = root.mappings ?? [];
    if (!Array.isArray(mappings)) fail(`'mappings' must be a list`);
    this.#mappings = mappings.map((raw, index) => compileMapping(raw, index, defaults));
    this.#defaultObserver = observerType(defaults, 'defaults') ?? 'summary';
    this.#defaultBuckets = buckets(defaults, 'defaults');
  }

  /** The metric for a stat, or undefined when a `drop` mapping discards it. */
  map(statName: string, type: StatType): MappedMetric | undefined {
    for (const mapping of this.#mappings) {
      if (mapping.metricType !== undefined && mapping.metricType !== type) continue;
      const match = mapping.regex.exec(statName);
      if (!match) continue;
      if (mapping.drop) return undefined;
      const labels: Record<string, string> = {};
      for (const [key, value] of mapping.labels) labels[key] = expand(value, match);
      return {
        name: escapeMetricName(expand(mapping.name, match)),
        labels,
        observerType: mapping.observerType,
        buckets: mapping.buckets,
        help: mapping.help,
      };
    }
    return {
      name: escapeMetricName(statName),
      labels: {},
      observerType: this.#defaultObserver,
      buckets: this.#defaultBuckets,
      help: '',
    };
  }
}
