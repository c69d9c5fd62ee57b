import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { loadContract, securityByOperation } from '../src/contract/document.js';
import { contractJsonPath, contractPath, packageRoot } from '../src/paths.js';

const run = promisify(execFile);
const bin = (name: string) => join(packageRoot, '..', '..', 'node_modules', '.bin', name);

test('redocly lint passes on openapi.yaml (recommended rules plus problem details)', async () => {
  const { stdout, stderr } = await run(bin('redocly'), ['lint', '--format=stylish', 'openapi/openapi.yaml'], {
    cwd: packageRoot,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  assert.match(`${stdout}${stderr}`, /valid/i);
});

test('src/generated/api.ts is what openapi-typescript generates from the contract (no drift)', async () => {
  // --check exits non-zero when the file on disk differs from a fresh generation.
  await run(bin('openapi-typescript'), ['openapi/openapi.yaml', '-o', 'src/generated/api.ts', '--check'], {
    cwd: packageRoot,
  });
});

test('openapi/openapi.json, which the service loads, is the contract YAML as JSON (no drift: npm run generate)', async () => {
  assert.deepEqual(
    JSON.parse(await readFile(contractJsonPath, 'utf8')),
    parse(await readFile(contractPath, 'utf8')),
    'openapi.yaml changed: run npm run generate -w packages/books',
  );
});

/** Operations open without a session: the calendar feed, whose secret token in the path is its key. */
const PUBLIC_OPERATIONS = new Set(['getCalendarFeed']);

test('every unsafe operation requires the CSRF header scheme, every operation but the calendar feed a session', () => {
  const contract = loadContract();
  for (const [path, item] of Object.entries(contract.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const { operationId } = operation as { operationId: string };
      const security = securityByOperation(contract).get(operationId) ?? [];
      if (PUBLIC_OPERATIONS.has(operationId)) {
        assert.deepEqual(security, [], `${operationId} is public`);
        assert.equal(method, 'get');
        continue;
      }
      assert.ok(security.length > 0, `${method} ${path} has no security`);
      for (const requirement of security) {
        assert.ok('sessionCookie' in requirement, `${operationId} must need a session`);
        assert.equal('xsrfHeader' in requirement, method !== 'get', `${operationId} CSRF scheme`);
      }
    }
  }
});
