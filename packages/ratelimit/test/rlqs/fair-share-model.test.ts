import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryDemandStore } from '../../src/backends/memory-demand.js';
import { loadConfig } from '../../src/config/loader.js';
import type { RateLimitConfig } from '../../src/config/tree.js';
import { silentLogger } from '../../src/log.js';
import type { Strategy } from '../../src/quota/strategy.js';
import type { BucketAction } from '../../src/service/quota-messages.js';
import { QuotaService, type QuotaStream } from '../../src/service/quota-service.js';
import { StatStore } from '../../src/stats/store.js';

/**
 * Model-based test of the shares: random steps (clients join, change demand, leave; the config is
 * reloaded with another limit or algorithm) against two service instances sharing one demand
 * store (every rebalance reads every bucket), and against one instance on its own store (a
 * rebalance shares out only the buckets that changed). After every step each instance rebalances once, and the model checks every client's
 * latest assignment against the limit it wrote into the config:
 * - a rate or token bucket: the clients' shares add up to exactly the limit (never more), each
 *   at least the floor ⌊limit / 2N⌋, and a client wanting no more than an equal share gets all
 *   it wants (whole requests); a token bucket's capacities add up to at most its burst (with a
 *   burst below 2N some clients get no token, so the floor holds from 2N on);
 * - requests_per_unit 0: every client DENY_ALL; unlimited: every client ALLOW_ALL.
 */

type Limit =
  | { kind: 'rate'; perSecond: number }
  | { kind: 'bucket'; rate: number; burst: number }
  | { kind: 'zero' }
  | { kind: 'unlimited' };

function configOf(limit: Limit): RateLimitConfig {
  const rule = {
    rate: () => `{unit: second, requests_per_unit: ${(limit as { perSecond: number }).perSecond}}`,
    bucket: () => {
      const { rate, burst } = limit as { rate: number; burst: number };
      return `{unit: second, requests_per_unit: ${rate}, algorithm: token_bucket, burst: ${burst}}`;
    },
    zero: () => '{unit: second, requests_per_unit: 0}',
    unlimited: () => '{unlimited: true}',
  }[limit.kind]();
  const text = `domain: model\ndescriptors:\n  - {key: name, value: shared, rate_limit: ${rule}}\n`;
  return loadConfig([{ kind: 'yaml', name: 'model.yaml', text }], false);
}

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Client {
  readonly instance: number;
  readonly stream: QuotaStream;
  demand: number;
  latest: Strategy | undefined;
}

for (const [setup, count] of [
  ['two instances sharing one store', 2],
  ['one instance on its own store', 1],
] as const) {
  test(`model, ${setup}: at every step of 400 random steps the shares add up to the configured limit, keep the floor and meet small demands`, async () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const pick = (n: number) => Math.floor(next() * n);
      let now = 1_700_000_000_000;
      const holder = { current: configOf({ kind: 'rate', perSecond: 100 }) as RateLimitConfig | undefined };
      let limit: Limit = { kind: 'rate', perSecond: 100 };
      const demand = new MemoryDemandStore({ shared: count > 1 });
      const options = {
        maxStreams: 1000,
        maxBucketsPerStream: 10,
        maxBuckets: 100,
        assignmentTtlMs: 30_000,
        abandonAfterMs: 3_600_000,
        rebalanceIntervalMs: 1000,
        globalShadowMode: false,
      };
      const instances = Array.from({ length: count }, (_, i) => i).map(
        (i) =>
          new QuotaService(
            holder,
            demand,
            new StatStore(),
            silentLogger,
            options,
            () => now,
            `instance-${i}`,
          ),
      );
      const clients: Client[] = [];
      const join = async () => {
        const instance = pick(count);
        const client: Client = {
          instance,
          stream: undefined as unknown as QuotaStream,
          demand: pick(80),
          latest: undefined,
        };
        const record = (actions: readonly BucketAction[]) => {
          for (const action of actions) if (action.kind === 'assign') client.latest = action.strategy;
        };
        (client as { stream: QuotaStream }).stream = (instances[instance] as QuotaService).open({
          send: record,
          end: () => undefined,
        });
        clients.push(client);
        await report(client);
      };
      const report = (client: Client) =>
        (instances[client.instance] as QuotaService).report(client.stream, {
          domain: 'model',
          usages: [{ bucket: [['name', 'shared']], elapsedMs: 1000, allowed: client.demand, denied: 0 }],
        });

      for (let step = 0; step < 400; step++) {
        const action = clients.length === 0 ? 0 : pick(10);
        if (action <= 2 && clients.length < 12) await join();
        else if (action <= 6 && clients.length > 0) {
          const client = clients[pick(clients.length)] as Client;
          client.demand = pick(4) === 0 ? 1000 : pick(80);
          await report(client);
        } else if (action <= 8 && clients.length > 0) {
          const [client] = clients.splice(pick(clients.length), 1) as [Client];
          (instances[client.instance] as QuotaService).close(client.stream);
        } else {
          const kinds: Limit[] = [
            { kind: 'rate', perSecond: 1 + pick(300) },
            { kind: 'bucket', rate: 1 + pick(200), burst: 1 + pick(400) },
            { kind: 'zero' },
            { kind: 'unlimited' },
          ];
          limit = kinds[pick(kinds.length)] as Limit;
          holder.current = configOf(limit);
        }
        now += 100;
        for (const instance of instances) await instance.rebalance();
        check(limit, clients, `seed ${seed} step ${step}`);
      }
      for (const instance of instances) await instance.stop();
    }
  });
}

function check(limit: Limit, clients: readonly Client[], where: string): void {
  const count = clients.length;
  if (count === 0) return;
  for (const client of clients) assert.ok(client.latest, `${where}: a client without an assignment`);
  const strategies = clients.map((client) => client.latest as Strategy);
  if (limit.kind === 'zero' || limit.kind === 'unlimited') {
    const rule = limit.kind === 'zero' ? 'DENY_ALL' : 'ALLOW_ALL';
    for (const strategy of strategies) assert.deepEqual(strategy, { kind: 'blanket', rule }, where);
    return;
  }
  const total = limit.kind === 'rate' ? limit.perSecond : limit.rate;
  const shares = strategies.map((strategy) => {
    if (strategy.kind === 'blanket') {
      assert.equal(strategy.rule, 'DENY_ALL', where);
      return 0;
    }
    if (limit.kind === 'rate') {
      assert.equal(strategy.kind, 'requests_per_time_unit', where);
      return strategy.kind === 'requests_per_time_unit' ? strategy.requests : 0;
    }
    assert.equal(strategy.kind, 'token_bucket', where);
    return strategy.kind === 'token_bucket' ? strategy.tokensPerFill : 0;
  });
  const sum = shares.reduce((a, b) => a + b, 0);
  assert.equal(sum, total, `${where}: shares ${shares} of a limit of ${total}`);
  // A burst of fewer than 2N tokens cannot give every client a whole token: no floor then.
  if (limit.kind === 'bucket' && limit.burst < 2 * count) return;
  const floor = Math.floor(total / (2 * count));
  shares.forEach((share, i) => {
    assert.ok(share >= floor, `${where}: share ${share} below the floor ${floor}`);
    const wants = (clients[i] as Client).demand;
    if (wants <= total / count)
      assert.ok(share >= Math.floor(wants), `${where}: wanted ${wants}, got ${share}`);
  });
  if (limit.kind === 'bucket') {
    const capacity = strategies.reduce(
      (sumOf, s) => sumOf + (s.kind === 'token_bucket' ? s.maxTokens : 0),
      0,
    );
    assert.ok(capacity <= limit.burst, `${where}: capacities add up to ${capacity} > burst ${limit.burst}`);
  }
}
