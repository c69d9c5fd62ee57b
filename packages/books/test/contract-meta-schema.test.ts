import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { loadContract } from '../src/contract/document.js';
import { shareMetaSchemaValidators } from '../src/contract/meta-schema-validators.js';

type Internals = { getAjvValidator(version: string): unknown };

test('every Validator of the process shares one compiled OpenAPI meta-schema, and still checks the contract', async () => {
  shareMetaSchemaValidators();
  const first = new Validator();
  const second = new Validator();
  assert.deepEqual(await first.validate(loadContract()), { valid: true });
  assert.deepEqual(await second.validate(loadContract()), { valid: true });
  assert.equal(first.version, '3.1');
  const compiled = (first as unknown as Internals).getAjvValidator('3.1');
  assert.equal(typeof compiled, 'function');
  assert.equal((second as unknown as Internals).getAjvValidator('3.1'), compiled);
  const broken = loadContract();
  broken.paths = { '/books': { get: { responses: 'not an object' } } };
  assert.equal((await new Validator().validate(broken)).valid, false, 'a broken contract is still refused');
});
