import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSearch } from '../src/http/query.js';

/** What the keywords must be: URLSearchParams's pairs, a repeated name collected into a list. */
function expected(search: string): [string, unknown][] {
  const keywords = new Map<string, unknown>();
  for (const [name, value] of new URLSearchParams(search)) {
    const previous = keywords.get(name);
    if (previous === undefined) keywords.set(name, value);
    else if (Array.isArray(previous)) previous.push(value);
    else keywords.set(name, [previous, value]);
  }
  return [...keywords];
}

test('a query split by hand gives exactly what URLSearchParams gives', () => {
  const queries = [
    '',
    '?',
    '??a=1',
    'q=books&page=2&size=10',
    'a&a=1&a=',
    '&&a=1&&b=2&',
    '=x&==y&a==b',
    '__proto__=1&constructor=2&toString',
    'é=ü&日本=語',
    'a+b=c+d',
    'a=%20%41&b=%zz&c=%',
    'lone=\uD800&pair=\uD83D\uDE00',
  ];
  // Names a handler knows (matched in place, as dispatch passes them) change no key and no value,
  // including names that are prefixes of others and names that are not in the query.
  const knownNames = ['a', 'ab', 'q', 'page', 'size', '__proto__', 'é', 'x'];
  for (const query of queries) {
    for (const names of [undefined, knownNames]) {
      const keywords = parseSearch(query, names);
      // Nothing is inherited, as from an object without a prototype.
      assert.equal(keywords.toString, query.includes('toString') ? '' : undefined, query);
      assert.equal(keywords.constructor, query.includes('constructor') ? '2' : undefined, query);
      assert.deepEqual(Object.entries(keywords), expected(query), query);
    }
  }
});
