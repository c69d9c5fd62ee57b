import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../src/config/loader.js';
import { matchDescriptor } from '../src/config/match.js';
import type { DomainConfig } from '../src/config/tree.js';
import { counter, request, ruleCounters, startTestServer, type TestServer } from './helpers/server.js';

const MATCHING = `domain: m
descriptors:
  - key: key2
    rate_limit: {unit: minute, requests_per_unit: 20}
  - key: key2
    value: value3
  - key: nested
    descriptors:
      - key: inner
        rate_limit: {unit: minute, requests_per_unit: 5}
  - key: wild
    value: "foo*"
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: wild
    value: "f*"
    rate_limit: {unit: minute, requests_per_unit: 2}
  - key: wild
    value: "foobar"
    rate_limit: {unit: minute, requests_per_unit: 3}
  - key: wild
    rate_limit: {unit: minute, requests_per_unit: 4}
  - key: any
    value: "*"
    rate_limit: {unit: minute, requests_per_unit: 6}
  - key: detailed
    detailed_metric: true
    rate_limit: {unit: minute, requests_per_unit: 7}
  - key: route
    value: "api/*"
    share_threshold: true
    value_to_metric: true
    descriptors:
      - key: method
        rate_limit: {unit: minute, requests_per_unit: 8}
  - key: tenant
    value_to_metric: true
    descriptors:
      - key: path
        value: "/v1"
        rate_limit: {unit: minute, requests_per_unit: 9}
`;

function domainOf(yaml: string, name: string): DomainConfig {
  const config = loadConfig([{ kind: 'yaml', name: 'config.m.yaml', text: yaml }], false);
  return config.domains.get(name) as DomainConfig;
}

const entries = (...pairs: string[]) =>
  pairs.map((pair) => {
    const [key, value] = pair.split('=') as [string, string];
    return { key, value: value ?? '' };
  });

describe('matching rules', () => {
  const domain = domainOf(MATCHING, 'm');
  const limitOf = (...pairs: string[]) => matchDescriptor(domain, entries(...pairs))?.rule.requestsPerUnit;

  test('a default key counts any value; a whitelisted key=value does not fall back to it', () => {
    assert.equal(limitOf('key2=anything'), 20);
    assert.equal(limitOf('key2=value3'), undefined);
  });

  test('request depth must equal config depth', () => {
    assert.equal(limitOf('nested=x'), undefined, 'a placeholder level has no limit');
    assert.equal(limitOf('nested=x', 'inner=y'), 5);
    assert.equal(limitOf('nested=x', 'inner=y', 'deeper=z'), undefined, 'deeper than the config');
    assert.equal(limitOf('key2=a', 'more=b'), undefined, 'a leaf rule does not apply to longer descriptors');
  });

  test('exact beats wildcard, the first wildcard in config order wins, wildcard beats default', () => {
    assert.equal(limitOf('wild=foobar'), 3);
    assert.equal(limitOf('wild=foobaz'), 1);
    assert.equal(limitOf('wild=fizz'), 2);
    assert.equal(limitOf('wild=zzz'), 4);
    assert.equal(limitOf('any='), 6, 'a bare * matches the empty value');
  });

  test('stat keys: load-time by default, runtime with detailed_metric and value_to_metric', () => {
    assert.equal(matchDescriptor(domain, entries('wild=foobaz'))?.statKey, 'm.wild_foo*');
    assert.equal(matchDescriptor(domain, entries('detailed=abc'))?.statKey, 'm.detailed_abc');
    assert.equal(
      matchDescriptor(domain, entries('tenant=acme', 'path=/v1'))?.statKey,
      'm.tenant_acme.path_/v1',
    );
  });

  test('share_threshold: the pattern with * replaces the value in the cache key and the stat key', () => {
    const match = matchDescriptor(domain, entries('route=api/users', 'method=GET'));
    assert.equal(match?.statKey, 'm.route_api/*.method');
    assert.deepEqual(match?.sharedValues, ['api/*', undefined]);
  });
});

describe('example config of the reference (domain rl) over gRPC', () => {
  let t: TestServer;
  before(async () => {
    const example = readFileSync(
      new URL('../examples/runtime/ratelimit/config/example.yaml', import.meta.url),
      'utf8',
    );
    t = await startTestServer({ 'example.yaml': example });
  });
  after(() => t.stop());

  const codes = async (...descriptors: string[][]) => {
    const response = await t.client.shouldRateLimit(request('rl', ...descriptors));
    return response.overallCode;
  };

  test('trigger-ratelimit.sh: three allowed, the fourth over', async () => {
    for (let i = 0; i < 3; i++) assert.equal(await codes(['foo=pelle', 'baz=not-so-shady']), 'OK');
    assert.equal(await codes(['foo=pelle', 'baz=not-so-shady']), 'OVER_LIMIT');
  });

  test('replaces.sh: replaced rules neither apply nor count, across descriptors and in chains', async () => {
    assert.equal(await codes(['foo=bkthomps', 'bar=banned']), 'OVER_LIMIT');
    assert.equal(
      await codes(['foo=bkthomps', 'bar=banned'], ['source_cluster=proxy', 'destination_cluster=mock']),
      'OVER_LIMIT',
    );
    const override = ['source_cluster=proxy', 'destination_cluster=override'];
    assert.equal(await codes(['foo=bkthomps', 'bar=banned'], override), 'OK');
    assert.equal(await codes(['foo=bkthomps', 'bar=banned'], override), 'OK');
    assert.equal(await codes(['foo=bkthomps', 'bar=banned'], override), 'OVER_LIMIT');

    const bkthomps = ['source_cluster=proxy', 'destination_cluster=bkthomps'];
    assert.equal(await codes(['foo=my_foo', 'bar=bkthomps'], bkthomps), 'OK');
    assert.equal(await codes(['foo=my_foo', 'bar=bkthomps'], bkthomps), 'OK');
    assert.equal(await codes(['foo=my_foo', 'bar=bkthomps'], bkthomps), 'OVER_LIMIT');
    // The bkthomps counter was never touched while it was replaced.
    const notBkthomps = ['source_cluster=proxy', 'destination_cluster=not_bkthomps'];
    assert.equal(await codes(['foo=my_foo', 'bar=bkthomps'], notBkthomps), 'OK');
    assert.equal(await codes(['foo=my_foo', 'bar=bkthomps'], notBkthomps), 'OVER_LIMIT');
    assert.equal(await codes(['foo=my_foo', 'bar=bkthomps'], bkthomps), 'OVER_LIMIT');

    // category=account replaces both bkthomps and fake_name: a chain where both rules are replaced.
    const fake = ['source_cluster=proxy', 'destination_cluster=fake'];
    for (let i = 0; i < 4; i++) {
      assert.equal(
        await codes(['foo=my_foo', 'bar=bkthomps'], fake, ['category=account']),
        'OK',
        `call ${i + 1}`,
      );
    }
    assert.equal(await codes(['foo=my_foo', 'bar=bkthomps'], fake, ['category=account']), 'OVER_LIMIT');
    assert.equal(await codes(['foo=foo_2', 'bar=bkthomps']), 'OK');
    assert.equal(await codes(['foo=foo_2', 'bar=bkthomps']), 'OVER_LIMIT');
    // fake_name was not incremented while it was replaced.
    assert.equal(await codes(['foo=foo_3', 'bar=bar_3'], fake), 'OK');
    assert.equal(await codes(['foo=foo_3', 'bar=bar_3'], fake), 'OK');
    assert.equal(await codes(['foo=foo_3', 'bar=bar_3'], fake), 'OVER_LIMIT');
    assert.equal(await codes(['foo=my_foo', 'bar=bkthomps'], fake, ['category=account']), 'OVER_LIMIT');
  });

  test('unlimited rules: OK, remaining 4294967295, no current limit, no stats', async () => {
    const response = await t.client.shouldRateLimit(request('rl', ['qux=anything'], ['foo=x', 'bay=y']));
    const statuses = response.statuses as Array<Record<string, unknown>>;
    for (const status of statuses) {
      assert.equal(status.code, 'OK');
      assert.equal(status.limitRemaining, 4_294_967_295);
      assert.equal(status.currentLimit, null);
    }
    assert.equal(ruleCounters(t.server, 'rl.qux').total_hits, 0);
  });

  test('value-included-in-stats-key-when-unspecified.sh: detailed_metric keys by value', async () => {
    assert.equal(await codes(['unspec=unspecified_value']), 'OK');
    assert.equal(await codes(['unspec=unspecified_value']), 'OK');
    assert.equal(await codes(['unspec=unspecified_value']), 'OVER_LIMIT');
    assert.equal(ruleCounters(t.server, 'rl.unspec_unspecified_value').over_limit, 1);
  });

  test('an unknown domain answers OK for every descriptor and counts domain_not_found', async () => {
    const response = await t.client.shouldRateLimit(request('nope', ['a=b'], ['c=d']));
    assert.equal(response.overallCode, 'OK');
    assert.deepEqual(
      (response.statuses as Array<Record<string, unknown>>).map((status) => [
        status.code,
        status.currentLimit,
      ]),
      [
        ['OK', null],
        ['OK', null],
      ],
    );
    assert.equal(counter(t.server, 'ratelimit.service.rate_limit.nope.domain_not_found'), 2);
  });

  test('a descriptor matching nothing gets a bare OK', async () => {
    const response = await t.client.shouldRateLimit(request('rl', ['unknown=key']));
    assert.deepEqual((response.statuses as Array<Record<string, unknown>>)[0]?.currentLimit, null);
  });

  test('a request limit override applies with its own stat key, only in a known domain', async () => {
    const descriptor = {
      entries: entries('user=alice', 'path='),
      limit: { requestsPerUnit: 1, unit: 'HOUR' },
    };
    const first = await t.client.shouldRateLimit({ domain: 'rl', descriptors: [descriptor] });
    const status = (first.statuses as Array<Record<string, unknown>>)[0];
    assert.deepEqual(status?.currentLimit, { name: '', requestsPerUnit: 1, unit: 'HOUR' });
    const second = await t.client.shouldRateLimit({ domain: 'rl', descriptors: [descriptor] });
    assert.equal(second.overallCode, 'OVER_LIMIT');
    assert.equal(ruleCounters(t.server, 'rl.user_alice.path').over_limit, 1);
    const unknown = await t.client.shouldRateLimit({ domain: 'other', descriptors: [descriptor] });
    assert.equal((unknown.statuses as Array<Record<string, unknown>>)[0]?.currentLimit, null);
  });

  test('an override with an unknown unit is an error for that call, not a crash', async () => {
    const descriptor = { entries: entries('user=bob'), limit: { requestsPerUnit: 1, unit: 'UNKNOWN' } };
    await assert.rejects(
      t.client.shouldRateLimit({ domain: 'rl', descriptors: [descriptor] }),
      (error: { code: number; details: string }) => {
        assert.equal(error.code, 2);
        assert.match(error.details, /invalid rate limit unit 'UNKNOWN'/);
        return true;
      },
    );
    assert.equal((await t.client.check('ratelimit')).status, 'SERVING');
  });
});

describe('share_threshold over gRPC (TestShareThreshold)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      'share.yaml': `domain: share-threshold-test
descriptors:
  - {key: files, value: "files/*", share_threshold: true, rate_limit: {unit: hour, requests_per_unit: 10}}
  - {key: files_no_share, value: "files_no_share/*", rate_limit: {unit: hour, requests_per_unit: 10}}
`,
    });
  });
  after(() => t.stop());

  test('all values under the wildcard share one counter', async () => {
    for (let i = 0; i < 10; i++)
      await t.client.shouldRateLimit(request('share-threshold-test', ['files=files/a.pdf']));
    const response = await t.client.shouldRateLimit(request('share-threshold-test', ['files=files/b.csv']));
    const status = (response.statuses as Array<Record<string, unknown>>)[0];
    assert.equal(status?.code, 'OVER_LIMIT');
    assert.deepEqual(status?.currentLimit, { name: '', requestsPerUnit: 10, unit: 'HOUR' });
    assert.equal(ruleCounters(t.server, 'share-threshold-test.files_files/*').total_hits, 11);
  });

  test('without share_threshold every value counts on its own', async () => {
    for (let i = 0; i < 10; i++) {
      const response = await t.client.shouldRateLimit(
        request('share-threshold-test', [`files_no_share=files_no_share/${i}`]),
      );
      assert.equal((response.statuses as Array<Record<string, unknown>>)[0]?.limitRemaining, 9);
    }
  });
});
