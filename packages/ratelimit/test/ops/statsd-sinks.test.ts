import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { DogStatsdSink } from '../../src/stats/sinks/dogstatsd.js';
import { LogSink } from '../../src/stats/sinks/log-sink.js';
import { Mogrifiers, parseTagPairs } from '../../src/stats/sinks/mogrifier.js';
import { StatsdTcpSink } from '../../src/stats/sinks/statsd-tcp.js';
import { snapshot } from './snapshot.js';

/** A statsd TCP listener that collects complete lines. */
async function statsdListener(port = 0) {
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      lines.push(...parts);
      for (const wake of waiters.splice(0)) wake();
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    lines,
    async waitForLines(count: number) {
      while (lines.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return lines.splice(0, count);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

test('statsd TCP sink sends counter deltas, gauges and timers with EXTRA_TAGS in the name', async () => {
  const listener = await statsdListener();
  const sink = new StatsdTcpSink({
    host: '127.0.0.1',
    port: listener.port,
    extraTags: { foo: 'bar', a: 'b.c' },
  });
  try {
    sink.flush(
      snapshot(
        {
          'ratelimit.service.rate_limit.basic.key1.total_hits': 3,
          'ratelimit.service.config_load_success': 1,
        },
        { 'ratelimit.redis_pool.cx_active': 2 },
        { 'ratelimit_server.ShouldRateLimit.response_time': [4, 7] },
      ),
    );
    assert.deepEqual(await listener.waitForLines(5), [
      'ratelimit.service.rate_limit.basic.key1.total_hits.__a=b_c.__foo=bar:3|c',
      'ratelimit.service.config_load_success.__a=b_c.__foo=bar:1|c',
      'ratelimit.redis_pool.cx_active.__a=b_c.__foo=bar:2|g',
      'ratelimit_server.ShouldRateLimit.response_time.__a=b_c.__foo=bar:4|ms',
      'ratelimit_server.ShouldRateLimit.response_time.__a=b_c.__foo=bar:7|ms',
    ]);
    // Second flush: only the counter that moved is sent, as the delta since the first flush.
    sink.flush(
      snapshot({
        'ratelimit.service.rate_limit.basic.key1.total_hits': 8,
        'ratelimit.service.config_load_success': 1,
      }),
    );
    assert.deepEqual(await listener.waitForLines(1), [
      'ratelimit.service.rate_limit.basic.key1.total_hits.__a=b_c.__foo=bar:5|c',
    ]);
  } finally {
    await sink.close();
    await listener.close();
  }
});

test('statsd TCP sink reconnects after the statsd server went away', async () => {
  const first = await statsdListener();
  const port = first.port;
  const sink = new StatsdTcpSink({ host: '127.0.0.1', port });
  try {
    sink.flush(snapshot({ a: 1 }));
    assert.deepEqual(await first.waitForLines(1), ['a:1|c']);
    await first.close();
    // Give the client socket a chance to see the close before the next flush.
    await new Promise((resolve) => setImmediate(resolve));
    const second = await statsdListener(port);
    try {
      // The first flushes may hit the dead connection; the sink must reconnect on a later one.
      for (let total = 2; second.lines.length === 0; total++) {
        sink.flush(snapshot({ a: total }));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(second.lines[0], 'a:1|c');
    } finally {
      await second.close();
    }
  } finally {
    await sink.close();
  }
});

test('log sink writes one gostats-style JSON line per flushed stat', async () => {
  const lines: string[] = [];
  const sink = new LogSink({ write: (line) => lines.push(line), now: () => 1_700_000_000_123 });
  sink.flush(snapshot({ 'ratelimit.service.config_load_success': 1 }, { g: 4 }));
  sink.flush(snapshot({ 'ratelimit.service.config_load_success': 1 }));
  await sink.close();
  assert.deepEqual(
    lines.map((line) => JSON.parse(line)),
    [
      {
        level: 'debug',
        ts: 1700000000.123,
        logger: 'gostats.loggingsink',
        msg: 'flushing counter',
        json: { name: 'ratelimit.service.config_load_success', type: 'counter', value: '1.000000' },
      },
      {
        level: 'debug',
        ts: 1700000000.123,
        logger: 'gostats.loggingsink',
        msg: 'flushing gauge',
        json: { name: 'g', type: 'gauge', value: '4.000000' },
      },
    ],
  );
});

test('log sink on stderr: a flush goes out in a few whole-line writes, the same lines as one per call', async (t) => {
  const samples = Array.from({ length: 1000 }, (_, i) => i / 10);
  const snapshot = () => ({
    counters: new Map([['c', 2]]),
    gauges: new Map([['g', 1]]),
    timers: new Map([['ratelimit_server.ShouldRateLimit.response_time', samples]]),
  });
  const perCall: string[] = [];
  new LogSink({ write: (line) => perCall.push(line), now: () => 1_700_000_000_123 }).flush(snapshot());

  const writes: string[] = [];
  t.mock.method(process.stderr, 'write', (text: string) => {
    writes.push(text);
    return true;
  });
  const sink = new LogSink({ now: () => 1_700_000_000_123 });
  sink.flush(snapshot());
  t.mock.restoreAll();
  await sink.close();
  assert.ok(writes.length > 1 && writes.length <= 4, `${writes.length} writes`);
  for (const text of writes) assert.ok(text.endsWith('\n'));
  assert.equal(writes.join(''), perCall.join(''));
  assert.equal(perCall.length, 1002);
  assert.deepEqual(JSON.parse(perCall[3] as string).json, {
    name: 'ratelimit_server.ShouldRateLimit.response_time',
    type: 'timer',
    value: '0.100000',
  });
});

test('a DogStatsD mogrifier renames a stat and turns $1 group references into tags', async () => {
  const receiver = createSocket('udp4');
  receiver.bind(0, '127.0.0.1');
  await once(receiver, 'listening');
  const packets: string[] = [];
  receiver.on('message', (message) => packets.push(message.toString()));
  const sink = new DogStatsdSink({
    host: '127.0.0.1',
    port: (receiver.address() as AddressInfo).port,
    extraTags: { env: 'test' },
    mogrifiers: [
      {
        id: 'RULE',
        pattern: String.raw`^ratelimit\.service\.rate_limit\.([^.]+)\.([^.]+)\.(.*)$`,
        name: 'ratelimit.service.rate_limit.$3',
        tags: parseTagPairs('DOG_STATSD_MOGRIFIER_RULE_TAGS', 'domain:$1,descriptor:$2'),
      },
    ],
  });
  try {
    sink.flush(
      snapshot(
        { 'ratelimit.service.rate_limit.mongo_cps.database_users.total_hits': 2 },
        {},
        { 'ratelimit_server.ShouldRateLimit.response_time': [3] },
      ),
    );
    while (packets.length === 0) await once(receiver, 'message');
    assert.deepEqual(packets[0]?.split('\n'), [
      'ratelimit.service.rate_limit.total_hits:2|c|#env:test,domain:mongo_cps,descriptor:database_users',
      'ratelimit_server.ShouldRateLimit.response_time:3|ms|#env:test',
    ]);
  } finally {
    await sink.close();
    receiver.close();
  }
});

test('mogrifier settings with a missing pattern, a bad regex or an unknown group are clear errors', () => {
  assert.throws(
    () => new Mogrifiers([{ id: 'X', pattern: '', name: 'a', tags: {} }]),
    /DOG_STATSD_MOGRIFIER_X_PATTERN: no PATTERN specified for mogrifier X/,
  );
  assert.throws(
    () => new Mogrifiers([{ id: 'X', pattern: '(', name: 'a', tags: {} }]),
    /DOG_STATSD_MOGRIFIER_X_PATTERN: failed to compile pattern '\('/,
  );
  assert.throws(
    () => new Mogrifiers([{ id: 'X', pattern: '^(a)$', name: 'b.$2', tags: {} }]),
    /DOG_STATSD_MOGRIFIER_X_NAME: \$2 refers to a group/,
  );
  assert.throws(
    () => parseTagPairs('EXTRA_TAGS', 'novalue'),
    /EXTRA_TAGS: 'novalue' is not a key:value pair/,
  );
  assert.deepEqual(parseTagPairs('EXTRA_TAGS', 'a:b, c:d:e'), { a: 'b', c: 'd:e' });
  assert.deepEqual(new Mogrifiers([]).apply('x.y'), { name: 'x.y', tags: [] });
});
