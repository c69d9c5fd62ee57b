import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatementNames } from '../src/db/statement-names.js';

test('a repeated SQL text keeps its name; past the limit new texts run unnamed', () => {
  const names = new StatementNames(2);
  const first = names.nameFor('select 1');
  assert.equal(typeof first, 'string');
  assert.equal(names.nameFor('select 1'), first);
  const second = names.nameFor('select 2');
  assert.notEqual(second, first);
  assert.equal(names.nameFor('select 3'), undefined);
  assert.equal(names.nameFor('select 2'), second, 'texts named before the limit keep their name');
});
