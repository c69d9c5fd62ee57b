import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from './helpers/server.js';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../bin/ratelimit-client.ts', import.meta.url));
const client = (...args: string[]) => run(process.execPath, ['--import', 'tsx', bin, ...args]);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail('expected a non-zero exit'),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

describe('ratelimit-client', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      'd.yaml':
        'domain: d\ndescriptors:\n  - key: a\n    descriptors:\n      - {key: b, rate_limit: {unit: minute, requests_per_unit: 5}}\n',
    });
  });
  after(() => t.stop());

  test('echoes its flags and prints the response in text format', async () => {
    const dial = `127.0.0.1:${t.server.ports.grpc}`;
    const { stdout } = await client(
      '-dial_string',
      dial,
      '-domain',
      'd',
      '-descriptors',
      'a=1,b=2',
      '-descriptors=x=y',
    );
    assert.equal(
      stdout,
      [
        `Flag: --dial_string="${dial}"`,
        'Flag: --domain="d"',
        'Flag: --descriptors="a=1,b=2"',
        'Flag: --descriptors="x=y"',
        'response: statuses:{code:OK current_limit:{requests_per_unit:5 unit:MINUTE} limit_remaining:4 duration_until_reset:{seconds:40}} statuses:{code:OK} overall_code:OK',
        '',
      ].join('\n'),
    );
  });

  test('exits 1 on a request error and on an invalid descriptor list', async () => {
    const dial = `127.0.0.1:${t.server.ports.grpc}`;
    const empty = await failure(client('-dial_string', dial, '-descriptors', 'a=1'));
    assert.equal(empty.code, 1);
    assert.match(empty.stdout, /request error: 2 UNKNOWN: rate limit domain must not be empty\n$/);
    const invalid = await failure(client('-dial_string', dial, '-domain', 'd', '-descriptors', 'a=1=2'));
    assert.equal(invalid.code, 1);
    assert.match(invalid.stdout, /invalid descriptor list\n$/);
    const unknownFlag = await failure(client('-bogus'));
    assert.equal(unknownFlag.code, 2);
    assert.equal(
      unknownFlag.stderr,
      'ratelimit-client: flag provided but not defined: -bogus (see ratelimit-client --help)\n',
    );
  });
});

test('ratelimit-client -rlqs opens a quota stream and prints the assignments', async (t) => {
  const server = await startTestServer(
    {
      'q.yaml':
        'domain: q\ndescriptors:\n  - {key: name, value: api, rate_limit: {unit: minute, requests_per_unit: 60}}\n',
    },
    { RLQS_ENABLED: 'true' },
  );
  t.after(() => server.stop());
  const { stdout } = await client(
    '-dial_string',
    `127.0.0.1:${server.server.ports.grpc}`,
    '-domain',
    'q',
    '-descriptors',
    'name=api',
    '-rlqs',
  );
  assert.match(
    stdout,
    /assignment: bucket:\{"name":"api"\} strategy:\{"requestsPerTimeUnit":\{"requests":60,"unit":"MINUTE"\}\} ttl_ms:60000\n$/,
  );
  const refused = await failure(
    client('-dial_string', `127.0.0.1:${server.server.ports.grpc}`, '-descriptors', 'name=api', '-rlqs'),
  );
  assert.equal(refused.code, 1);
  assert.match(
    refused.stdout,
    /stream error: 3 INVALID_ARGUMENT: the first report of a stream must name its domain\n$/,
  );
});
