import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QuotaStreamClient } from '../helpers/rlqs-client.js';
import { eventually, startTestServer } from '../helpers/server.js';

/** The README's worked example, step by step. */
test("the README's worked example: two Envoys share 60 a minute by demand, with the floor, and the survivor gets it all", async (t) => {
  const server = await startTestServer(
    {
      'shop.yaml':
        'domain: shop\ndescriptors:\n  - key: name\n    value: api\n    rate_limit: {unit: minute, requests_per_unit: 60}\n',
    },
    { RLQS_ENABLED: 'true', RLQS_REBALANCE_INTERVAL: '1h' },
  );
  t.after(() => server.stop());
  const address = `127.0.0.1:${server.server.ports.grpc}`;
  const a = new QuotaStreamClient(address);
  const b = new QuotaStreamClient(address);
  t.after(() => {
    a.close();
    b.close();
  });
  const perMinute = (actions: Awaited<ReturnType<QuotaStreamClient['next']>>) =>
    actions[0]?.strategy?.requestsPerTimeUnit?.requests;

  a.report('shop', [{ bucket: { name: 'api' }, elapsed: 1, allowed: 10 }]);
  const first = await a.next();
  assert.equal(perMinute(first), 60);
  assert.equal(first[0]?.ttlMs, 60_000);

  b.report('shop', [{ bucket: { name: 'api' }, elapsed: 2, allowed: 1 }]);
  assert.equal(perMinute(await b.next()), 30);
  assert.equal(perMinute(await a.next()), 30, 'A is pushed its smaller share');

  b.report('shop', [{ bucket: { name: 'api' }, elapsed: 10, allowed: 1 }]);
  assert.equal(perMinute(await b.next()), 15);
  // A's larger share waits for the next rebalance.
  await server.server.quota?.rebalance();
  assert.equal(perMinute(await a.next()), 45);

  a.close();
  await eventually(() => server.server.quota?.openStreams === 1);
  await server.server.quota?.rebalance();
  assert.equal(perMinute(await b.next()), 60);
});
