import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

test('defaults apply when the environment is empty', () => {
  assert.deepEqual(loadConfig({}), { port: 3000, publicBaseUrl: undefined });
});

test('PUBLIC_BASE_URL is normalised without a trailing slash', () => {
  assert.equal(
    loadConfig({ PUBLIC_BASE_URL: 'https://books.example/' }).publicBaseUrl,
    'https://books.example',
  );
});

test('invalid values name the setting', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty' }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /invalid PORT 'eighty'/);
      return true;
    },
  );
  assert.throws(() => loadConfig({ PUBLIC_BASE_URL: 'ftp://x' }), /invalid PUBLIC_BASE_URL/);
});
