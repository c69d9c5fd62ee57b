import type { Settings } from '../../settings.js';
import { parseTagPairs } from './mogrifier.js';
import type { StatSinkSettings } from './select.js';

/** Maps the parsed stats settings onto what the sink factory needs. */
export function statSinkSettings(stats: Settings['stats']): StatSinkSettings {
  return {
    disableStats: stats.disabled,
    useStatsd: stats.useStatsd,
    statsdHost: stats.statsdHost,
    statsdPort: stats.statsdPort,
    useDogStatsd: stats.useDogStatsd,
    dogStatsdMogrifiers: stats.dogStatsdMogrifiers.map((mogrifier) => ({
      id: mogrifier.name,
      pattern: mogrifier.pattern.source,
      name: mogrifier.metricName,
      tags: parseTagPairs(`DOG_STATSD_MOGRIFIER_${mogrifier.name}_TAGS`, mogrifier.tags.join(',')),
    })),
    usePrometheus: stats.usePrometheus,
    prometheusAddr: stats.prometheusAddr,
    prometheusPath: stats.prometheusPath,
    prometheusMapperYaml: stats.prometheusMapperYaml,
    extraTags: Object.fromEntries(stats.extraTags),
  };
}
