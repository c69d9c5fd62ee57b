import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type RedisProcess, startRedis } from '@platform/testkit';
import { type Action, QuotaStreamClient } from '../helpers/rlqs-client.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Fair share through real streams: N simulated Envoys (grpc-js clients) report one bucket of
 * 100 requests per second, on one memory-store instance or spread over two instances on one
 * Redis. After every change (clients join, change demand, leave) each instance rebalances once;
 * then every client's current assignment is read back: the last one the server sent it, since the
 * server sends a client its strategy whenever it changes (and a settled report gets no answer).
 */
const LIMIT = 100;
const CONFIG = `domain: fair
descriptors:
  - {key: name, value: shared, rate_limit: {unit: second, requests_per_unit: ${LIMIT}}}
`;
const BUCKET = { name: 'shared' };
const ENV = { RLQS_ENABLED: 'true', RLQS_REBALANCE_INTERVAL: '1h', RLQS_ABANDON_AFTER: '1h' };

interface Setup {
  readonly servers: TestServer[];
  stop(): Promise<void>;
}

async function oneMemoryInstance(): Promise<Setup> {
  const server = await startTestServer({ 'fair.yaml': CONFIG }, ENV);
  return { servers: [server], stop: () => server.stop() };
}

async function twoInstancesOnRedis(): Promise<Setup> {
  const redis: RedisProcess = await startRedis();
  const env = { ...ENV, BACKEND_TYPE: 'redis', REDIS_URL: redis.address };
  const servers = [
    await startTestServer({ 'fair.yaml': CONFIG }, env),
    await startTestServer({ 'fair.yaml': CONFIG }, env),
  ];
  return {
    servers,
    async stop() {
      for (const server of servers) await server.stop();
      await redis.stop();
    },
  };
}

/** One simulated Envoy: reports its demand for the bucket and reads its assignment. */
class SimulatedClient {
  readonly stream: QuotaStreamClient;
  constructor(
    readonly server: TestServer,
    public demand: number,
  ) {
    this.stream = new QuotaStreamClient(`127.0.0.1:${server.server.ports.grpc}`);
  }

  /**
   * Reports `demand` requests over the last second; resolves to the requests per second assigned.
   * The report also names a probe bucket this stream has not named before, matching no rule: the
   * first assignment of a new bucket is always sent, in the response to the report that names it,
   * and a probe is never pushed again. So the response holding this probe ends what the server
   * sent for this report; the last `shared` action up to it is the client's current assignment.
   */
  async report(): Promise<number> {
    const probe = String(++this.probes);
    this.stream.report('fair', [
      { bucket: BUCKET, allowed: this.demand, elapsed: 1 },
      { bucket: { probe }, elapsed: 1 },
    ]);
    for (;;) {
      const actions = await this.stream.next();
      this.latest = actions.findLast((action) => action.bucket.name === 'shared') ?? this.latest;
      if (actions.some((action) => action.bucket.probe === probe)) break;
    }
    const latest = this.latest as Action;
    if (latest.strategy?.blanket === 'DENY_ALL') return 0;
    const rate = latest.strategy?.requestsPerTimeUnit;
    assert.ok(rate, `an assignment with a rate: ${JSON.stringify(latest)}`);
    assert.equal(rate.unit, 'SECOND');
    return rate.requests;
  }

  private latest: Action | undefined;
  private probes = 0;
}

/** One rebalance on every instance, then every client's current assignment. */
async function afterOneRebalance(setup: Setup, clients: readonly SimulatedClient[]): Promise<number[]> {
  for (const server of setup.servers) await server.server.quota?.rebalance();
  const shares: number[] = [];
  for (const client of clients) shares.push(await client.report());
  return shares;
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

for (const [name, start] of [
  ['one instance, memory store', oneMemoryInstance],
  ['two instances on one Redis', twoInstancesOnRedis],
] as const) {
  for (const count of [2, 3, 10]) {
    test(`${name}, ${count} clients: shares add up to at most the limit, keep the floor, and grow when a client leaves`, async () => {
      const setup = await start();
      const clients: SimulatedClient[] = [];
      try {
        const floor = Math.floor(LIMIT / (2 * count));
        // Join one by one, with different demands.
        for (let i = 0; i < count; i++) {
          const client = new SimulatedClient(
            setup.servers[i % setup.servers.length] as TestServer,
            5 * (i + 1),
          );
          clients.push(client);
          await client.report();
        }
        const joined = await afterOneRebalance(setup, clients);
        assert.ok(sum(joined) <= LIMIT, `sum ${sum(joined)} of ${joined}`);
        for (const share of joined) assert.ok(share >= floor, `share ${share} below the floor ${floor}`);

        // Client 0 stays steady at 1 request per second; the others want far more than the limit.
        for (const [i, client] of clients.entries()) {
          client.demand = i === 0 ? 1 : 1000;
          await client.report();
        }
        const busy = await afterOneRebalance(setup, clients);
        assert.ok(sum(busy) <= LIMIT, `sum ${sum(busy)} of ${busy}`);
        assert.ok((busy[0] as number) >= floor, `the steady client got ${busy[0]}, below its floor ${floor}`);
        // Nothing is left idle: the busy clients share what the steady one does not use.
        assert.ok(sum(busy) >= LIMIT - count, `sum ${sum(busy)} of ${busy}`);

        // The last client leaves: within one rebalance the busy ones that stay get more.
        (clients.pop() as SimulatedClient).stream.close();
        const left = await waitForLeave(setup, clients);
        assert.ok(sum(left) <= LIMIT, `sum ${sum(left)} of ${left}`);
        const newFloor = Math.floor(LIMIT / (2 * (count - 1)));
        assert.ok((left[0] as number) >= newFloor, `the steady client got ${left[0]}, below ${newFloor}`);
        for (let i = 1; i < clients.length; i++) {
          assert.ok((left[i] as number) > (busy[i] as number), `client ${i}: ${busy[i]} → ${left[i]}`);
        }
      } finally {
        for (const client of clients) client.stream.close();
        await setup.stop();
      }
    });
  }
}

/**
 * The server learns of a cancelled stream from the network, outside the test's control: waits
 * until the instances hold one stream fewer, then rebalances once.
 */
async function waitForLeave(setup: Setup, clients: readonly SimulatedClient[]): Promise<number[]> {
  const open = () =>
    setup.servers.reduce((total, server) => total + (server.server.quota?.openStreams ?? 0), 0);
  const deadline = Date.now() + 5000;
  while (open() > clients.length) {
    if (Date.now() > deadline) throw new Error('the closed stream was not seen');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return afterOneRebalance(setup, clients);
}
