import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCliArgs, parseHost } from '../src/cli/args.js';
import { EndpointsError } from '../src/index.js';

test('--host accepts host:port, [v6]:port, :port, port and host', () => {
  assert.deepEqual(parseHost('127.0.0.1:8000'), { host: '127.0.0.1', port: 8000 });
  assert.deepEqual(parseHost('[::1]:0'), { host: '::1', port: 0 });
  assert.deepEqual(parseHost(':9000'), { host: '127.0.0.1', port: 9000 });
  assert.deepEqual(parseHost('9001'), { host: '127.0.0.1', port: 9001 });
  assert.deepEqual(parseHost('localhost'), { host: 'localhost', port: 8000 });
});

test('a bad --host is an INVALID_ARGUMENT error', () => {
  for (const value of ['127.0.0.1:70000', 'a:b:c', 'host:port']) {
    assert.throws(
      () => parseHost(value),
      (error: unknown) => error instanceof EndpointsError && error.code === 'INVALID_ARGUMENT',
      value,
    );
  }
});

test('options: repeatable prefixes with their alias, flags, production from NODE_ENV', () => {
  const options = parseCliArgs(
    ['-P', 'a', '--prefix', 'b', '--controller-prefix', 'c', '--reload', '--debug'],
    {},
  );
  assert.deepEqual(options.prefixes, ['a', 'b', 'c']);
  assert.equal(options.reload, true);
  assert.equal(options.debug, true);
  assert.equal(options.production, false);
  assert.equal(parseCliArgs([], { NODE_ENV: 'production' }).production, true);
  assert.deepEqual(parseCliArgs([], {}).prefixes, []);
  assert.throws(() => parseCliArgs(['stray'], {}), /Unexpected argument 'stray'/);
});

test('options: --project and the validation flags; absent, they leave the settings to the environment', () => {
  const options = parseCliArgs(
    ['--project', 'tsconfig.json', '--response-validation', 'strict', '--message-validation'],
    {},
  );
  assert.equal(options.project, 'tsconfig.json');
  assert.equal(options.responseValidation, 'strict');
  assert.equal(options.messageValidation, true);
  const unset = parseCliArgs([], {});
  assert.equal(unset.project, undefined);
  assert.equal(unset.responseValidation, undefined);
  assert.equal(unset.messageValidation, undefined);
});
