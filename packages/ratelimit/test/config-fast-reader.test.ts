import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigDocument } from '../src/config/document.js';
import { readExactDocument } from '../src/config/exact-reader.js';
import { readUnambiguousYaml } from '../src/config/fast-reader.js';
import { loadConfig } from '../src/config/loader.js';

const NAME = 'config.basic.yaml';

/** The exact reader's document, or its error message. */
function exact(text: string): ConfigDocument | string {
  try {
    return readExactDocument({ kind: 'yaml', name: NAME, text });
  } catch (error) {
    return (error as Error).message;
  }
}

function assertFast(text: string): void {
  const fast = readUnambiguousYaml(NAME, text);
  assert.ok(fast, `expected the fast reader to take:\n${text}`);
  assert.deepEqual(fast, exact(text), text);
}

function assertFallsBack(text: string): void {
  assert.equal(readUnambiguousYaml(NAME, text), undefined, `expected a fallback for:\n${text}`);
}

const rule = (block: string) => `domain: d\ndescriptors:\n  - key: k\n    rate_limit: ${block}\n`;
const descriptor = (fields: string) => `domain: d\ndescriptors:\n  - {key: k, ${fields}}\n`;

test('configs in the common forms take the fast reader and decode exactly as the exact reader does', () => {
  const texts = [
    // Block style with comments, nesting, every field.
    [
      '# rate limits',
      '---',
      'domain: edge   # trailing comment',
      'descriptors:',
      '  - key: route',
      '    value: /api/v1/*',
      '    share_threshold: true',
      '    rate_limit:',
      '      unit: minute',
      '      requests_per_unit: 4294967295',
      '      name: per-route',
      '      replaces:',
      '        - name: old',
      '        - {name: older}',
      '    descriptors:',
      '    - key: method',
      '      value: GET',
      '      shadow_mode: false',
      '      detailed_metric: true',
      '      value_to_metric: true',
      '      rate_limit: {unit: second, requests_per_unit: 0}',
      '  - key: user',
      '    rate_limit: {unlimited: true}',
      '...',
      '',
    ].join('\n'),
    // Quoted scalars, quoted keys, JSON-like flow.
    `{"domain": "d", 'descriptors': [{"key": "k", "value": 'a b # not a comment', "rate_limit": {"unit": "HOUR", "requests_per_unit": 5}}]}\n`,
    // YAML 1.1 bools and nulls, decimals and oddities that stay strings, in string fields.
    descriptor('value: yes'),
    descriptor('value: Off'),
    descriptor('value: y'),
    descriptor('value: ~'),
    descriptor('value: null'),
    descriptor('value: NULL'),
    descriptor('value: "null"'),
    descriptor("value: '010'"),
    descriptor('value: 123'),
    descriptor('value: 0'),
    descriptor('value: a#b'),
    descriptor('value: a:b'),
    descriptor('value: <<'),
    descriptor('value: -a'),
    descriptor('value: 10.0.0.1.x'),
    descriptor('value: ""'),
    descriptor('value:'),
    // Nulls where lists, maps, bools and numbers go.
    'domain: d\ndescriptors: ~\n',
    'domain: d\ndescriptors:\n',
    descriptor('descriptors: null, rate_limit: ~, shadow_mode: ~'),
    rule('{unit: second, requests_per_unit: ~, replaces: null}'),
    // Layout: CRLF, a sequence at its key's indent, an empty descriptor, a multi-line block map.
    'domain: d\r\ndescriptors:\r\n- key: k\r\n  value: v\r\n',
    'domain: d\ndescriptors: [{}]\n',
    'domain: d\ndescriptors: []',
  ];
  for (const text of texts) assertFast(text);
});

test('scalars whose YAML 1.1 type or text could differ fall back to the exact reader', () => {
  const ambiguous = [
    // Numbers the way YAML 1.1 reads them: octal, sexagesimal, hex, signs, underscores, floats.
    rule('{unit: second, requests_per_unit: 010}'),
    rule('{unit: second, requests_per_unit: 1:30}'),
    rule('{unit: second, requests_per_unit: 0x10}'),
    rule('{unit: second, requests_per_unit: +5}'),
    rule('{unit: second, requests_per_unit: -1}'),
    rule('{unit: second, requests_per_unit: 1_000}'),
    rule('{unit: second, requests_per_unit: 1.5}'),
    rule('{unit: second, requests_per_unit: 1e3}'),
    rule('{unit: second, requests_per_unit: 4294967296}'),
    rule('{unit: second, requests_per_unit: "10"}'),
    descriptor('value: 0x1F'),
    descriptor('value: 010'),
    descriptor('value: 1:30'),
    descriptor('value: 1.5'),
    descriptor('value: .inf'),
    descriptor('value: .nan'),
    descriptor('value: 2024-01-01'),
    // Bools other than true/false, and strings, in bool fields.
    descriptor('shadow_mode: yes'),
    descriptor('shadow_mode: on'),
    descriptor('shadow_mode: Off'),
    descriptor('shadow_mode: True'),
    descriptor('shadow_mode: "true"'),
    descriptor('shadow_mode: 1'),
    // Collections where scalars go and scalars where collections go.
    descriptor('value: [a]'),
    descriptor('value: {a: b}'),
    'domain: d\ndescriptors: {key: k}\n',
    'domain: d\ndescriptors: [a]\n',
    'domain: d\ndescriptors: [~]\n',
    rule('second'),
    rule('{unit: second, replaces: [n]}'),
    // Keys outside a level's fields, including allow-listed keys the decoder ignores there.
    'domain: d\nratelimit: 1\n',
    'domain: d\nunit: second\n',
    descriptor('0.25: x'),
    descriptor('unit: second'),
    descriptor('<<: {value: x}'),
    // Roots that are not maps.
    '',
    '# only a comment\n',
    '~\n',
    '- domain: d\n',
    'just text\n',
  ];
  for (const text of ambiguous) assertFallsBack(text);
});

test('YAML forms the two parsers may read differently fall back to the exact reader', () => {
  const forms = [
    'domain: d\n---\nbogus: 1\n',
    'domain: &a d\ndescriptors:\n  - {key: *a}\n',
    'domain: !!str d\n',
    'domain: !custom d\n',
    'domain: a\n  b\n',
    'domain: "a\n  b"\n',
    'domain: "a\\tb"\n',
    "domain: 'it''s'\n",
    'domain: |\n  d\n',
    'domain: >-\n  d\n',
    'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second,\n      requests_per_unit: 1}\n',
    'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second,\n    requests_per_unit: 1}\n',
    'domain: d\ndescriptors: [\n{key: k}]\n',
    'domain:\td\n',
    'domain: d\rdescriptors: []\r',
    'domain: a\u0085b\n',
    'domain: a\u2028b\n',
    '%YAML 1.1\n---\ndomain: d\n',
    'domain: a\ndomain: b\n',
    'domain: [\n',
    'domain: d\u0000\n',
  ];
  for (const text of forms) assertFallsBack(text);
});

test('after a fallback, loadConfig gives the reference result', () => {
  const load = (text: string) => loadConfig([{ kind: 'yaml', name: NAME, text }], false);
  const fails = (text: string, message: string) =>
    assert.throws(
      () => load(text),
      (error: unknown) => (error as Error).message === message,
    );
  fails(
    rule('{unit: second, requests_per_unit: "10"}'),
    'config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 4: cannot unmarshal !!str `10` into uint32',
  );
  fails(
    descriptor('shadow_mode: "true"'),
    'config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 3: cannot unmarshal !!str `true` into bool',
  );
  fails(descriptor('value: 1.5'), 'config.basic.yaml: error checking config');
  fails(
    'domain: d\nunit: [a]\n',
    'config.basic.yaml: config error, yaml file contains list of type other than map: a',
  );
  fails(
    'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second,\n    requests_per_unit: 1}\n',
    'config.basic.yaml: error loading config file: yaml: line 5: Flow map in block collection must be sufficiently indented and end with a }',
  );
  // YAML 1.1 numbers and bools, decoded by the exact reader.
  assert.equal(load(rule('{unit: second, requests_per_unit: 010}')).rules[0]?.requestsPerUnit, 8);
  assert.equal(load(rule('{unit: second, requests_per_unit: 1:30}')).rules[0]?.requestsPerUnit, 90);
  assert.equal(load(rule('{unit: second, requests_per_unit: 0x10}')).rules[0]?.requestsPerUnit, 16);
  assert.equal(load(descriptor('value: 0x1F, rate_limit: {unit: second}')).rules[0]?.fullKey, 'd.k_0x1F');
  assert.equal(load(descriptor('shadow_mode: on, rate_limit: {unit: second}')).rules[0]?.shadowMode, true);
  // An allow-listed key at a level that does not read it is ignored, as by the reference.
  assert.deepEqual(load('domain: d\nunit: second\n').rules, []);
  // Anchors and aliases are the exact reader's business too; a multi-line plain value is folded.
  assert.equal(load('domain: a\n  b\n').domains.has('a b'), true);
});

/** A small deterministic PRNG, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Plain texts picked to cover every YAML 1.1 type and the strings around them. */
const TOKENS = [
  'route',
  'GET',
  '/api/*',
  'a b',
  'a#b',
  'second',
  'MINUTE',
  'hour',
  'fortnight',
  'true',
  'false',
  'True',
  'yes',
  'no',
  'on',
  'OFF',
  'y',
  '~',
  'null',
  'Null',
  '0',
  '7',
  '10',
  '010',
  '0x1F',
  '0b101',
  '+3',
  '-1',
  '1_000',
  '1:30',
  '1.5',
  '1e3',
  '.inf',
  '.NaN',
  '2024-01-01',
  '<<',
  '4294967295',
  '4294967296',
  '10.0.0.1',
  '*',
  'x*',
];

/**
 * Builds a random config: known fields with scalars from TOKENS, plain or quoted, block or flow
 * layout, sometimes a wrong-typed field, an unknown key or a comment.
 */
function generateConfig(next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const scalar = (): string => {
    const token = pick(TOKENS);
    const style = next();
    if (style < 0.15) return `"${token}"`;
    if (style < 0.25) return `'${token}'`;
    if (style < 0.3) return '';
    return token;
  };
  const entries = (fields: readonly (readonly [string, () => string])[]): [string, string][] =>
    fields.filter(() => next() < 0.6).map(([name, value]) => [name, value()]);
  const flow = (pairs: [string, string][]): string =>
    `{${pairs.map(([key, value]) => (value === '' ? `${key}: ~` : `${key}: ${value}`)).join(', ')}}`;
  const rateLimit = (): string =>
    flow(
      entries([
        ['unit', () => pick(['second', 'minute', 'HOUR', scalar()])],
        ['requests_per_unit', () => (next() < 0.6 ? String(Math.floor(next() * 1000)) : scalar())],
        ['unlimited', scalar],
        ['name', scalar],
        ['replaces', () => (next() < 0.5 ? `[{name: ${scalar() || 'x'}}]` : scalar())],
      ]),
    );
  const lines: string[] = [`domain: ${next() < 0.9 ? 'd' : scalar()}`];
  if (next() < 0.05) lines.push(`${pick(['unit', 'ratelimit', 'key'])}: ${scalar()}`);
  lines.push('descriptors:');
  const descriptors = Math.floor(next() * 4);
  for (let i = 0; i < descriptors; i++) {
    const pairs = entries([
      ['key', () => (next() < 0.8 ? `k${i}` : scalar())],
      ['value', scalar],
      ['rate_limit', rateLimit],
      ['shadow_mode', scalar],
      ['detailed_metric', () => pick(['true', 'false', scalar()])],
      ['share_threshold', scalar],
    ]);
    if (next() < 0.05) pairs.push([pick(['unit', 'bogus']), scalar()]);
    if (next() < 0.5) {
      lines.push(`  - ${flow(pairs)}${next() < 0.2 ? '  # note' : ''}`);
    } else {
      lines.push('  -');
      for (const [key, value] of pairs) lines.push(`    ${key}: ${value}`);
      if (pairs.length === 0) lines.push('    {}');
    }
  }
  return `${lines.join('\n')}\n`;
}

test('property: whenever the fast reader takes a generated config, the exact reader agrees', () => {
  const next = random(20_251_122);
  let taken = 0;
  const cases = 1500;
  for (let i = 0; i < cases; i++) {
    const text = generateConfig(next);
    const fast = readUnambiguousYaml(NAME, text);
    if (fast === undefined) continue;
    taken++;
    assert.deepEqual(fast, exact(text), `case ${i}:\n${text}`);
  }
  // Both directions must be exercised for the comparison to mean anything.
  assert.ok(taken > cases * 0.1 && taken < cases * 0.9, `fast reader took ${taken} of ${cases}`);
});
