import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, spawnManaged } from '@platform/testkit';
import { eventually, loopbackEnv, request, startTestServer } from '../helpers/server.js';

const config = {
  'rl.yaml': [
    'domain: rl',
    'descriptors:',
    '  - key: unspec',
    '    detailed_metric: true',
    '    rate_limit: { unit: minute, requests_per_unit: 2 }',
  ].join('\n'),
};

test('the statsd sink of the real server sends per-rule counter deltas with EXTRA_TAGS over TCP', async (t) => {
  const lines: string[] = [];
  const sockets = new Set<Socket>();
  const listener = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    listener.close();
  });
  const server = await startTestServer(config, {
    DISABLE_STATS: 'false',
    USE_STATSD: 'true',
    STATSD_HOST: '127.0.0.1',
    STATSD_PORT: String((listener.address() as AddressInfo).port),
    EXTRA_TAGS: 'cluster:eu.1',
  });
  t.after(() => server.stop());
  for (let i = 0; i < 3; i++)
    await server.client.shouldRateLimit(request('rl', ['unspec=unspecified_value']));
  server.server.stats.flush();
  const prefix = 'ratelimit.service.rate_limit.rl.unspec_unspecified_value';
  await eventually(() => lines.some((line) => line.startsWith(`${prefix}.over_limit`)));
  assert.ok(lines.includes(`${prefix}.total_hits.__cluster=eu_1:3|c`), lines.join('\n'));
  assert.ok(lines.includes(`${prefix}.over_limit.__cluster=eu_1:1|c`));
  assert.ok(lines.includes('ratelimit.service.config_load_success.__cluster=eu_1:1|c'));
  assert.ok(
    lines.some((line) =>
      /^ratelimit_server\.ShouldRateLimit\.response_time\.__cluster=eu_1:[\d.]+\|ms$/.test(line),
    ),
  );

  // The next flush carries only what changed since.
  lines.length = 0;
  await server.client.shouldRateLimit(request('rl', ['unspec=unspecified_value']));
  server.server.stats.flush();
  await eventually(() => lines.some((line) => line.startsWith(`${prefix}.total_hits`)));
  assert.ok(lines.includes(`${prefix}.total_hits.__cluster=eu_1:1|c`));
  assert.ok(!lines.some((line) => line.startsWith('ratelimit.service.config_load_success')));
});

test('USE_DOG_STATSD with a mogrifier from the environment sends tagged datagrams from the real server', async (t) => {
  const receiver = createSocket('udp4');
  receiver.bind(0, '127.0.0.1');
  await once(receiver, 'listening');
  t.after(() => receiver.close());
  const lines: string[] = [];
  receiver.on('message', (message) => lines.push(...message.toString().split('\n')));
  const server = await startTestServer(config, {
    DISABLE_STATS: 'false',
    USE_STATSD: 'false',
    USE_DOG_STATSD: 'true',
    STATSD_HOST: '127.0.0.1',
    STATSD_PORT: String((receiver.address() as AddressInfo).port),
    EXTRA_TAGS: 'env:test',
    USE_DOG_STATSD_MOGRIFIERS: 'RULE',
    DOG_STATSD_MOGRIFIER_RULE_PATTERN: String.raw`^ratelimit\.service\.rate_limit\.([^.]+)\.([^.]+)\.([^.]+)$`,
    DOG_STATSD_MOGRIFIER_RULE_NAME: 'ratelimit.rule.$3',
    DOG_STATSD_MOGRIFIER_RULE_TAGS: 'domain:$1,rule:$2',
  });
  t.after(() => server.stop());
  await server.client.shouldRateLimit(request('rl', ['unspec=x']));
  server.server.stats.flush();
  await eventually(() => lines.some((line) => line.startsWith('ratelimit.rule.total_hits')));
  assert.ok(
    lines.includes('ratelimit.rule.total_hits:1|c|#env:test,domain:rl,rule:unspec_x'),
    lines.join('\n'),
  );
  assert.ok(lines.includes('ratelimit.service.config_load_success:1|c|#env:test'));
});

test('USE_PROMETHEUS serves the reference example stat under its default mapping', async (t) => {
  const port = await freePort();
  const server = await startTestServer(config, {
    DISABLE_STATS: 'false',
    USE_STATSD: 'false',
    USE_PROMETHEUS: 'true',
    PROMETHEUS_ADDR: `127.0.0.1:${port}`,
  });
  t.after(() => server.stop());
  for (let i = 0; i < 3; i++)
    await server.client.shouldRateLimit(request('rl', ['unspec=unspecified_value']));
  server.server.stats.flush();
  const body = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (series: string) => {
    const line = body.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  assert.equal(
    value('ratelimit_service_rate_limit_over_limit{domain="rl",key1="unspec_unspecified_value"}'),
    1,
  );
  assert.equal(
    value('ratelimit_service_rate_limit_total_hits{domain="rl",key1="unspec_unspecified_value"}'),
    3,
  );
  assert.equal(value('ratelimit_service_config_load_success'), 1);
  assert.equal(value('ratelimit_service_total_requests{grpc_method="ShouldRateLimit"}'), 3);
});

test('the server binary writes JSON log lines with @message, @timestamp and level', async (t) => {
  const bin = fileURLToPath(new URL('../../bin/ratelimit.ts', import.meta.url));
  const runtimeRoot = fileURLToPath(new URL('../../examples/runtime', import.meta.url));
  const env = { ...loopbackEnv(runtimeRoot), LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  const child = spawnManaged('env', [...assignments, process.execPath, '--import', 'tsx', bin]);
  t.after(() => child.stop());
  await eventually(() => child.output().includes('ratelimit service started'), 20_000);
  const lines = child
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const started = lines.find((line) => line['@message'] === 'ratelimit service started');
  assert.ok(started, child.output());
  assert.equal(started.level, 'info');
  assert.ok(!Number.isNaN(Date.parse(String(started['@timestamp']))));
  assert.equal(typeof started.grpc, 'number');
});
