import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultMappingYaml } from '../../src/stats/sinks/prometheus/default-mapping.js';
import { StatsdMapper } from '../../src/stats/sinks/prometheus/mapper.js';
import { PrometheusSink } from '../../src/stats/sinks/prometheus/sink.js';
import { createStatSink, type StatSinkSettings } from '../../src/stats/sinks/select.js';
import { snapshot } from './snapshot.js';

/** Parses the text exposition format into `series -> value`, ignoring comments. */
function parseExposition(body: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

async function scrape(port: number, path: string): Promise<{ status: number; series: Map<string, number> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, series: parseExposition(await response.text()) };
}

test('a Prometheus scrape shows the stats named by the default mapping', async () => {
  const sink = new PrometheusSink({
    addr: '127.0.0.1:0',
    path: '/metrics',
    mapper: new StatsdMapper(defaultMappingYaml),
  });
  const { port } = await sink.listen();
  try {
    sink.flush(
      snapshot(
        {
          'ratelimit.service.rate_limit.rl.unspec_unspecified_value.over_limit': 1,
          'ratelimit.service.rate_limit.rl.foo_pelle.baz_not-so-shady.x.total_hits': 2,
          'ratelimit.service.rate_limit.rl.foo_pelle.baz_not-so-shady.y.total_hits': 1,
          'ratelimit.service.call.should_rate_limit.redis_error': 4,
          'ratelimit_server.ShouldRateLimit.total_requests': 7,
          'ratelimit.service.config_load_success': 1,
        },
        { 'ratelimit.service.rate_limit.rl.test_gauge': 3 },
        { 'ratelimit_server.ShouldRateLimit.response_time': [2, 400] },
      ),
    );
    // Cumulative totals: the second flush adds only the difference.
    sink.flush(snapshot({ 'ratelimit.service.rate_limit.rl.unspec_unspecified_value.over_limit': 3 }));
    const { status, series } = await scrape(port, '/metrics');
    assert.equal(status, 200);
    const expected: Array<[string, number]> = [
      ['ratelimit_service_rate_limit_over_limit{domain="rl",key1="unspec_unspecified_value"}', 3],
      // Levels past key2 are folded into the key1/key2 series and summed (2 + 1).
      ['ratelimit_service_rate_limit_total_hits{domain="rl",key1="foo_pelle",key2="baz_not-so-shady"}', 3],
      ['ratelimit_service_should_rate_limit_error{err_type="redis_error"}', 4],
      ['ratelimit_service_total_requests{grpc_method="ShouldRateLimit"}', 7],
      ['ratelimit_service_config_load_success', 1],
      ['ratelimit_service_rate_limit_rl_test_gauge', 3],
      ['ratelimit_service_response_time_seconds_count{grpc_method="ShouldRateLimit"}', 2],
      ['ratelimit_service_response_time_seconds_sum{grpc_method="ShouldRateLimit"}', 402],
      ['ratelimit_service_response_time_seconds_bucket{le="+Inf",grpc_method="ShouldRateLimit"}', 2],
    ];
    for (const [name, value] of expected) assert.equal(series.get(name), value, name);
    assert.equal((await scrape(port, '/other')).status, 404);
  } finally {
    await sink.close();
  }
});

test('PROMETHEUS_MAPPER_YAML replaces the default mapping; drop discards stats', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'rl-mapper-'));
  const file = join(dir, 'mapper.yaml');
  await writeFile(
    file,
    [
      'mappings:',
      '  - match: "ratelimit.service.rate_limit.*.*.*"',
      '    name: "rl_$3"',
      '    labels: { domain: "$1", rule: "$2" }',
      '  - match: "ratelimit.service.config_load_*"',
      '    action: drop',
    ].join('\n'),
  );
  const settings: StatSinkSettings = {
    disableStats: false,
    useStatsd: false,
    statsdHost: 'localhost',
    statsdPort: 8125,
    useDogStatsd: false,
    dogStatsdMogrifiers: [],
    usePrometheus: true,
    prometheusAddr: '127.0.0.1:0',
    prometheusPath: '/stats',
    prometheusMapperYaml: file,
    extraTags: { cluster: 'c1' },
    debugLog: false,
  };
  const sink = await createStatSink(settings);
  try {
    assert.ok(sink instanceof PrometheusSink);
    sink.flush(
      snapshot({
        'ratelimit.service.rate_limit.basic.key1.total_hits': 5,
        'ratelimit.service.config_load_error': 1,
      }),
    );
    const port = sink.address()?.port ?? 0;
    const { series } = await scrape(port, '/stats');
    assert.equal(series.get('rl_total_hits{cluster="c1",domain="basic",rule="key1"}'), 5);
    assert.ok(![...series.keys()].some((name) => name.includes('config_load')));
  } finally {
    await sink.close();
    await rm(dir, { recursive: true });
  }
});

test('the sink choice rejects two enabled sinks and a broken mapping file with clear errors', async () => {
  const base: StatSinkSettings = {
    disableStats: false,
    useStatsd: true,
    statsdHost: 'localhost',
    statsdPort: 8125,
    useDogStatsd: false,
    dogStatsdMogrifiers: [],
    usePrometheus: true,
    prometheusAddr: ':9090',
    prometheusPath: '/metrics',
    prometheusMapperYaml: '',
    extraTags: {},
    debugLog: true,
  };
  await assert.rejects(
    createStatSink(base),
    /unable to use more than one stats sink at the same time\. Set one of USE_DOG_STATSD, USE_STATSD, USE_PROMETHEUS\./,
  );
  await assert.rejects(
    createStatSink({ ...base, useStatsd: false, prometheusMapperYaml: '/nonexistent/mapper.yaml' }),
    /PROMETHEUS_MAPPER_YAML: cannot read '\/nonexistent\/mapper.yaml'/,
  );
  assert.throws(() => new StatsdMapper('mappings: [{ name: x }]'), /mappings\[0\]: 'match' is required/);
  assert.throws(() => new StatsdMapper('mappings: ['), /not valid YAML/);
  assert.throws(
    () => new StatsdMapper('mappings: [{ match: "(", match_type: regex, name: x }]'),
    /mappings\[0\]: invalid regex/,
  );
  await assert.rejects(
    createStatSink({ ...base, useStatsd: false, prometheusAddr: 'nonsense' }),
    /PROMETHEUS_ADDR: 'nonsense' is not a host:port address/,
  );
  const disabled = await createStatSink({ ...base, disableStats: true });
  assert.equal(disabled.constructor.name, 'NullSink');
  const logSink = await createStatSink({ ...base, useStatsd: false, usePrometheus: false });
  assert.equal(logSink.constructor.name, 'LogSink');
  // gostats' logging-sink lines are debug lines: above LOG_LEVEL=debug none is written.
  const quiet = await createStatSink({ ...base, useStatsd: false, usePrometheus: false, debugLog: false });
  assert.equal(quiet.constructor.name, 'NullSink');
});
