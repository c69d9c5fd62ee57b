import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ConfigDocument, DescriptorConfig } from '../src/config/document.js';
import { loadConfig } from '../src/config/loader.js';
import { readConfigDocument } from '../src/config/yaml-reader.js';

/** The typed document, or the error message the reference would print. */
function read(text: string, name = 'config.basic.yaml'): ConfigDocument | string {
  try {
    return readConfigDocument({ kind: 'yaml', name, text });
  } catch (error) {
    return (error as Error).message;
  }
}

function readOk(text: string): ConfigDocument {
  const document = read(text);
  assert.ok(typeof document !== 'string', `expected ${JSON.stringify(text)} to load, got: ${document}`);
  return document;
}

/** Loads through the whole config path (reader, then tree and validation) and gives the error text. */
function loadError(name: string, text: string): string {
  try {
    loadConfig([{ kind: 'yaml', name, text }], false);
  } catch (error) {
    return (error as Error).message;
  }
  return 'loaded';
}

const descriptor = (fields: Partial<DescriptorConfig>): DescriptorConfig => ({
  key: '',
  value: '',
  rateLimit: undefined,
  descriptors: [],
  shadowMode: false,
  detailedMetric: false,
  valueToMetric: false,
  shareThreshold: false,
  ...fields,
});

const block = (unit: string, requestsPerUnit: number, more: { name?: string; replaces?: string[] } = {}) => ({
  unit,
  requestsPerUnit,
  unlimited: false,
  name: more.name ?? '',
  replaces: more.replaces ?? [],
});

test("the reference's invalid-config files give its messages (test/config/*.yaml, config_test.go)", () => {
  const cases: [string, string, string][] = [
    ['empty_domain.yaml', 'descriptors:\n', 'empty_domain.yaml: config file cannot have empty domain'],
    [
      'empty_key.yaml',
      'domain: test-domain\ndescriptors:\n  - value: value1\n',
      'empty_key.yaml: descriptor has empty key',
    ],
    [
      'duplicate_key.yaml',
      'domain: test-domain\ndescriptors:\n  - key: key1\n    value: value1\n\n  - key: key1\n    value: value1\n',
      "duplicate_key.yaml: duplicate descriptor composite key 'test-domain.key1_value1'",
    ],
    [
      'bad_limit_unit.yaml',
      'domain: test-domain\ndescriptors:\n  - key: key1\n    value: value1\n    rate_limit:\n      unit: foo\n      requests_per_unit: 5\n',
      "bad_limit_unit.yaml: invalid rate limit unit 'foo'",
    ],
    [
      'replaces_self.yaml',
      'domain: test-domain\ndescriptors:\n  - key: key1\n    value: value1\n    descriptors:\n      - key: subkey1\n        rate_limit:\n          name: self\n          replaces:\n            - name: self\n          unit: second\n          requests_per_unit: 5\n',
      'replaces_self.yaml: replaces should not contain name of same descriptor',
    ],
    [
      'replaces_empty.yaml',
      'domain: test-domain\ndescriptors:\n  - key: key1\n    value: value1\n    descriptors:\n      - key: subkey1\n        rate_limit:\n          name: self\n          replaces:\n            - name:\n          unit: second\n          requests_per_unit: 5\n',
      'replaces_empty.yaml: should not have an empty replaces entry',
    ],
    [
      'misspelled_key.yaml',
      'domain: test-domain\ndescriptors:\n  - key: key1\n    value: value1\n    ratelimit:\n      unit: day\n      requests_per_unit: 5\n',
      "misspelled_key.yaml: config error, unknown key 'ratelimit'",
    ],
    [
      'misspelled_key2.yaml',
      'domain: test-domain\ndescriptors:\n  - key: key1\n    value: value1\n    rate_limit:\n      unit: day\n      requestsperunit: 5\n',
      "misspelled_key2.yaml: config error, unknown key 'requestsperunit'",
    ],
    [
      'non_string_key.yaml',
      '0.25: test-domain\ndescriptors:\n  - key: key1\n    value: value1\n    rate_limit:\n      unit: day\n      requests_per_unit: 5\n',
      'non_string_key.yaml: config error, key is not of type string: 0.25',
    ],
    [
      'non_map_list.yaml',
      'domain: test-domain\ndescriptors:\n  - a\n  - b\n  - c\n',
      'non_map_list.yaml: config error, yaml file contains list of type other than map: a',
    ],
    [
      'unlimited_with_unit.yaml',
      'domain: test-domain\ndescriptors:\n  - key: foo\n    rate_limit:\n      unlimited: true\n      unit: day\n      requests_per_unit: 25\n',
      'unlimited_with_unit.yaml: should not specify rate limit unit when unlimited',
    ],
  ];
  for (const [name, text, message] of cases) assert.equal(loadError(name, text), message, name);
  // bad_yaml.yaml (`'''`): an unterminated quoted scalar, reported on line 2 as libyaml does.
  assert.match(
    loadError('bad_yaml.yaml', "'''\n"),
    /^bad_yaml\.yaml: error loading config file: yaml: line 2: /,
  );
});

test('anchors, aliases and merge keys resolve as yaml.v2 resolves them', () => {
  // An alias shares a whole rate_limit block.
  assert.deepEqual(
    readOk(
      'domain: d\ndescriptors:\n  - key: a\n    rate_limit: &rl\n      unit: minute\n      requests_per_unit: 10\n  - key: b\n    rate_limit: *rl\n',
    ).descriptors.map((d) => d.rateLimit),
    [block('minute', 10), block('minute', 10)],
  );
  // A merge key takes a base block; a key written after `<<` overrides it. (The anchor sits on
  // an allow-listed key: a top-level `base:` would be an unknown key to the reference too.)
  assert.deepEqual(
    readOk(
      'domain: d\ndescriptors:\n  - key: a\n    rate_limit: &base {unit: second, requests_per_unit: 5, name: base}\n  - key: b\n    rate_limit:\n      <<: *base\n      requests_per_unit: 7\n',
    ).descriptors.map((d) => d.rateLimit),
    [block('second', 5, { name: 'base' }), block('second', 7, { name: 'base' })],
  );
  assert.equal(
    read('base: &base {unit: second}\ndomain: d\n'),
    "config.basic.yaml: config error, unknown key 'base'",
  );
  // ...but `<<` applies where it stands: a key written before it is overridden (yaml.v2 v2.4.0).
  assert.equal(
    readOk(
      'domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      requests_per_unit: 7\n      <<: {unit: hour, requests_per_unit: 9}\n',
    ).descriptors[0]?.rateLimit?.requestsPerUnit,
    9,
  );
  // A list of merged maps: earlier ones win.
  assert.deepEqual(
    readOk(
      'domain: d\ndescriptors:\n  - key: a\n    rate_limit:\n      <<: [{unit: day}, {unit: hour, requests_per_unit: 3}]\n',
    ).descriptors[0]?.rateLimit,
    block('day', 3),
  );
  // Whole descriptors and descriptor lists can be aliased and merged, scalars too.
  const shared = readOk(
    [
      'domain: &d edge',
      'descriptors:',
      '  - &route',
      '    key: route',
      '    value: *d',
      '    descriptors: &methods',
      '      - {key: method, value: GET, rate_limit: {unit: second, requests_per_unit: 1}}',
      '  - <<: *route',
      '    value: other',
      '  - key: path',
      '    descriptors: *methods',
      '',
    ].join('\n'),
  );
  const methods = [descriptor({ key: 'method', value: 'GET', rateLimit: block('second', 1) })];
  assert.deepEqual(shared, {
    name: 'config.basic.yaml',
    domain: 'edge',
    descriptors: [
      descriptor({ key: 'route', value: 'edge', descriptors: methods }),
      descriptor({ key: 'route', value: 'other', descriptors: methods }),
      descriptor({ key: 'path', descriptors: methods }),
    ],
  });
  // A merge of an explicit !!merge key, and a rate_limit given twice adds to the first (a Go pointer).
  assert.deepEqual(
    readOk(
      'domain: d\ndescriptors:\n  - key: a\n    rate_limit: {unit: second}\n    rate_limit: {requests_per_unit: 4}\n',
    ).descriptors[0]?.rateLimit,
    block('second', 4),
  );
  assert.equal(readOk('descriptors: [&b {domain: merged}]\n!!merge <<: *b\n').domain, 'merged');
  // The merged keys go through the allow-list like written ones.
  assert.equal(
    read('domain: d\ndescriptors:\n  - <<: {bogus: 1}\n    key: k\n'),
    "config.basic.yaml: config error, unknown key 'bogus'",
  );
});

test('what yaml.v2 refuses is refused, with its message', () => {
  const fails: [string, string][] = [
    ['domain: *x\n', "yaml: unknown anchor 'x' referenced"],
    [
      'domain: d\ndescriptors:\n  - &a\n    key: k\n    descriptors: [*a]\n',
      "yaml: anchor 'a' value contains itself",
    ],
    ['domain: d\n<<: 1\n', 'yaml: map merge requires map or sequence of maps as the value'],
    ['s: &s x\ndomain: d\n<<: [*s]\n', 'yaml: map merge requires map or sequence of maps as the value'],
    ['domain: d\n<<:\n', 'yaml: map merge requires map or sequence of maps as the value'],
    // A collection as a key.
    ['[domain]: foo\n', 'yaml: invalid map key: []interface {}{"domain"}'],
    ['{a: 1}: foo\n', 'yaml: invalid map key: map[interface {}]interface {}{"a":1}'],
    ['domain: !!int abc\n', 'yaml: cannot decode !!str `abc` as a !!int'],
  ];
  for (const [text, message] of fails) {
    assert.equal(read(text), `config.basic.yaml: error loading config file: ${message}`, text);
  }
  // A mapping on the `---` line is a syntax error in libyaml.
  assert.match(
    String(read('--- domain: a\n')),
    /^config\.basic\.yaml: error loading config file: yaml: line 1: /,
  );
  // A quoted `"<<"` is an ordinary key, so the allow-list refuses it.
  assert.equal(read('"<<": {domain: d}\n'), "config.basic.yaml: config error, unknown key '<<'");
  // A billion-laughs document stops at yaml.v2's alias ratio instead of expanding.
  const laughs = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++) {
    laughs.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${`*${String.fromCharCode(96 + i)}, `.repeat(9)}*${String.fromCharCode(96 + i)}]`,
    );
  }
  assert.equal(
    read(`${laughs.join('\n')}\n`),
    'config.basic.yaml: error loading config file: yaml: document contains excessive aliasing',
  );
});

test('what libyaml and yaml.v2 accept is accepted', () => {
  // libyaml ends a quoted scalar or a flow collection at `#` without white space before it.
  assert.equal(readOk('domain: "d"#c\n').domain, 'd');
  assert.equal(readOk("domain: 'd'#c\ndescriptors: []#c\n").domain, 'd');
  // A key given twice keeps its last value: yaml.v2's Unmarshal is not strict.
  assert.equal(readOk('domain: a\ndomain: b\n').domain, 'b');
  // Only the first document of a stream is read.
  assert.equal(readOk('domain: d\n---\nbogus: [\n').domain, 'd');
});

test("scalars resolve by yaml.v2's rules, and string fields take a scalar's text", () => {
  const rpu = (value: string) =>
    read(
      `domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: ${value}}\n`,
    );
  const rpuOf = (value: string) => {
    const document = rpu(value);
    return typeof document === 'string' ? document : document.descriptors[0]?.rateLimit?.requestsPerUnit;
  };
  assert.equal(rpuOf('010'), 8);
  assert.equal(rpuOf('0o10'), 8);
  assert.equal(rpuOf('0x10'), 16);
  assert.equal(rpuOf('0b101'), 5);
  assert.equal(rpuOf('+5'), 5);
  assert.equal(rpuOf('1_000'), 1000);
  assert.equal(rpuOf('4294967295'), 4_294_967_295);
  assert.equal(rpuOf('~'), 0);
  const unmarshal = (text: string) =>
    `config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 4: cannot unmarshal ${text} into uint32`;
  assert.equal(rpuOf('4294967296'), unmarshal('!!int `4294967296`'));
  assert.equal(rpuOf('-1'), unmarshal('!!int `-1`'));
  assert.equal(rpuOf('"10"'), unmarshal('!!str `10`'));
  // yaml.v2 has no base-60 numbers: 1:30 is a string.
  assert.equal(rpuOf('1:30'), unmarshal('!!str `1:30`'));
  assert.equal(rpuOf('yes'), unmarshal('!!bool `yes`'));
  assert.equal(rpuOf('"a long string"'), unmarshal('!!str `a long ...`'));
  // Floats and uint64 values are leaves the reference's key check refuses.
  for (const value of ['1.5', '1e3', '1.0', '.5', '.inf', '09', '9223372036854775808']) {
    assert.equal(rpuOf(value), 'config.basic.yaml: error checking config', value);
  }
  const valueField = (value: string) =>
    readOk(`domain: d\ndescriptors:\n  - key: k\n    value: ${value}\n`).descriptors[0]?.value;
  for (const text of ['yes', 'Off', '0x1F', '010', '1:30', '2024-01-01', '<<', 'a#b', '1e400']) {
    assert.equal(valueField(text), text, text);
  }
  assert.equal(valueField('~'), '');
  assert.equal(valueField('"null"'), 'null');
  assert.equal(valueField('!!str 5'), '5');
  const shadow = (value: string) => read(`domain: d\ndescriptors:\n  - key: k\n    shadow_mode: ${value}\n`);
  for (const [text, mode] of [
    ['on', true],
    ['Y', true],
    ['no', false],
    ['FALSE', false],
  ] as const) {
    assert.equal((shadow(text) as ConfigDocument).descriptors[0]?.shadowMode, mode, text);
  }
  assert.equal(
    shadow('"true"'),
    'config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 4: cannot unmarshal !!str `true` into bool',
  );
  assert.equal(
    read('domain: d\ndescriptors:\n  - key: k\n    rate_limit: second\n'),
    'config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 4: cannot unmarshal !!str `second` into config.YamlRateLimit',
  );
  assert.equal(
    read('domain: d\ndescriptors: {key: k}\n'),
    'config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 2: cannot unmarshal !!map into []config.YamlDescriptor',
  );
  assert.equal(
    read('- domain: d\n'),
    'config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!seq into map[interface {}]interface {}',
  );
});

test('an xDS document (already structured) reads without YAML resolution', () => {
  const document = readConfigDocument({
    kind: 'object',
    name: 'xds',
    value: {
      domain: 'yes',
      descriptors: [{ key: 'k', value: '010', rate_limit: { unit: 'SECOND', requests_per_unit: 3 } }],
    },
  });
  assert.equal(document.domain, 'yes');
  assert.deepEqual(
    document.descriptors[0],
    descriptor({ key: 'k', value: '010', rateLimit: block('SECOND', 3) }),
  );
});

test('yaml.v2 departures: !!binary is base64-decoded, Go float syntax takes underscores, control characters refuse the file', () => {
  const valueField = (value: string) =>
    readOk(`domain: d\ndescriptors:\n  - key: k\n    value: ${value}\n`).descriptors[0]?.value;
  // !!binary: the value is the decoded bytes (yaml.v2 decodes with Go's base64.StdEncoding).
  assert.equal(valueField('!!binary a2V5'), 'key');
  assert.equal(valueField('!!binary "a2V5MQ=="'), 'key1');
  assert.equal(readOk('domain: !!binary ZG9tYWlu\n').domain, 'domain');
  for (const invalid of ['a2V5MQ', 'a2V5!', 'a2 V5', '====']) {
    assert.equal(
      read(`domain: d\ndescriptors:\n  - key: k\n    value: !!binary "${invalid}"\n`),
      'config.basic.yaml: error loading config file: yaml: !!binary value contains invalid base64 data',
      invalid,
    );
  }
  // Go's strconv.ParseFloat takes underscores between digits, so `.1_0` is a float (0.1) in
  // yaml.v2, a leaf the reference's key check refuses; `._1` and `.1_` are strings.
  const rpu = (value: string) =>
    read(
      `domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: ${value}}\n`,
    );
  assert.equal(rpu('.1_0'), 'config.basic.yaml: error checking config');
  assert.equal(rpu('.1_0e1_0'), 'config.basic.yaml: error checking config');
  for (const text of ['._1', '.1_', '.1__0']) {
    assert.equal(
      rpu(text),
      `config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 4: cannot unmarshal !!str \`${text}\` into uint32`,
      text,
    );
  }
  // libyaml's reader refuses a control character anywhere in the input, comments included.
  for (const character of ['\u0007', '\u007f', '\uffff', '\ufffe', '\u0080', '\u009f']) {
    for (const text of [`domain: d${character}\n`, `domain: d # ${character}\n`]) {
      assert.equal(
        read(text),
        'config.basic.yaml: error loading config file: yaml: control characters are not allowed',
        JSON.stringify(text),
      );
    }
  }
  for (const allowed of ['\t', '\u0085', '\u00a0', '\ud7ff', '\ue000', '\ufffd', '\u{10000}']) {
    assert.equal(readOk(`domain: d # ${allowed}\n`).domain, 'd', JSON.stringify(allowed));
  }
});
