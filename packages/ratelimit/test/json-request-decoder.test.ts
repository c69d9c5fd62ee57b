import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeRateLimitRequest, JsonRequestError } from '../src/server/json-request-decoder.js';
import type { RateLimitRequest } from '../src/service/messages.js';

function decode(body: string | Buffer): RateLimitRequest {
  return decodeRateLimitRequest(typeof body === 'string' ? Buffer.from(body) : body);
}

/** The verdict of protojson.Unmarshal (protobuf-go) for the body: accepted, or refused (400). */
function verdict(body: string | Buffer): 'ok' | 'refused' {
  try {
    decode(body);
    return 'ok';
  } catch (error) {
    assert.ok(error instanceof JsonRequestError, `not a JsonRequestError: ${error}`);
    return 'refused';
  }
}

const hits = (value: string) => `{"hitsAddend":${value}}`;
const rpu = (value: string) => `{"descriptors":[{"limit":{"requestsPerUnit":${value}}}]}`;
const addend64 = (value: string) => `{"descriptors":[{"hitsAddend":${value}}]}`;
const unit = (value: string) => `{"descriptors":[{"limit":{"unit":${value}}}]}`;

test('a table of /json bodies with the verdict of the proto3 JSON mapping (protojson)', () => {
  const table: [string | Buffer, 'ok' | 'refused'][] = [
    // Shape and syntax.
    ['{}', 'ok'],
    [' \t\r\n{ } \n', 'ok'],
    ['', 'refused'],
    ['null', 'refused'],
    ['[]', 'refused'],
    ['{"domain":"d"} x', 'refused'],
    ['{"domain":"d"}{}', 'refused'],
    ['\uFEFF{}', 'refused'],
    ['{"domain":"d",}', 'refused'],
    ['{"descriptors":[{},]}', 'refused'],
    ['{"descriptors":[null]}', 'refused'],
    ['{"domain":"d"\u00a0}', 'refused'],
    ['{"domain":nul}', 'refused'],
    ['{"domain":nullx}', 'refused'],
    // Field names: JSON or proto name, unknown ones refused, each field once.
    ['{"hits_addend":1}', 'ok'],
    ['{"dom\\u0061in":"d"}', 'ok'],
    ['{"Domain":"d"}', 'refused'],
    ['{"bogus":1}', 'refused'],
    ['{"__proto__":{}}', 'refused'],
    ['{"domain":"a","domain":"b"}', 'refused'],
    ['{"domain":null,"domain":"b"}', 'refused'],
    ['{"hitsAddend":1,"hits_addend":1}', 'refused'],
    ['{"descriptors":[],"descriptors":[]}', 'refused'],
    ['{"descriptors":[{"entries":[{"key":"a","key":"b"}]}]}', 'refused'],
    ['{"descriptors":[{"limit":{},"limit":null}]}', 'refused'],
    // null leaves any field unset.
    ['{"domain":null,"descriptors":null,"hitsAddend":null}', 'ok'],
    ['{"descriptors":[{"entries":null,"limit":null,"hitsAddend":null}]}', 'ok'],
    // Strings: escapes, surrogates, control characters, UTF-8.
    ['{"domain":"\\ud83d\\ude00 \\u00e9 \\n\\t\\/\\\\\\""}', 'ok'],
    ['{"domain":"😀 ünï"}', 'ok'],
    ['{"domain":"\\ud800"}', 'refused'],
    ['{"domain":"\\udc00\\ud800"}', 'refused'],
    ['{"domain":"\\ud800x"}', 'refused'],
    ['{"domain":"\\ud800\\u0041"}', 'refused'],
    ['{"domain":"\\x41"}', 'refused'],
    ['{"domain":"\\u00g1"}', 'refused'],
    ['{"domain":"a\tb"}', 'refused'],
    ['{"domain":"a\u0000b"}', 'refused'],
    ['{"domain":"a', 'refused'],
    [
      Buffer.from([0x7b, 0x22, 0x64, 0x6f, 0x6d, 0x61, 0x69, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
      'refused',
    ],
    [
      Buffer.concat([Buffer.from('{"domain":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
      'refused',
    ],
    [Buffer.concat([Buffer.from('{"domain":"'), Buffer.from([0xc3]), Buffer.from('"}')]), 'refused'],
    ['{"domain":5}', 'refused'],
    ['{"domain":true}', 'refused'],
    // Integers: every form of a whole number in range, as a number or a string holding one.
    [hits('7'), 'ok'],
    [hits('"7"'), 'ok'],
    [hits('1e3'), 'ok'],
    [hits('"1e3"'), 'ok'],
    [hits('1.0'), 'ok'],
    [hits('"1.0"'), 'ok'],
    [hits('"-0"'), 'ok'],
    [hits('-0'), 'ok'],
    [hits('-0.0e5'), 'ok'],
    [hits('10e-1'), 'ok'],
    [hits('1.50e2'), 'ok'],
    [hits('0e-400'), 'ok'],
    [hits('1E+2'), 'ok'],
    [hits('"\\u0031"'), 'ok'],
    [hits('4294967295'), 'ok'],
    // protobuf-go's parseNumber takes an `e` with no digits before a delimiter, as exponent 0.
    [hits('1e'), 'ok'],
    [hits('1e,"domain":"d"'), 'ok'],
    [hits('01'), 'refused'],
    [hits('"01"'), 'refused'],
    [hits('1.5'), 'refused'],
    [hits('"1.5"'), 'refused'],
    [hits('1e-400'), 'refused'],
    [hits('1e400'), 'refused'],
    [hits('15e-1'), 'refused'],
    [hits('-1'), 'refused'],
    [hits('"-1"'), 'refused'],
    [hits('4294967296'), 'refused'],
    [hits('" 1"'), 'refused'],
    [hits('"1 "'), 'refused'],
    // protojson reads a quoted number only up to its first delimiter ("1 2" is 1 there): a decision
    // of this service to refuse it, as a string that is not one number (README, /json decoding).
    [hits('"1 2"'), 'refused'],
    [addend64('"1 2"'), 'refused'],
    [hits('""'), 'refused'],
    [hits('"0x10"'), 'refused'],
    [hits('+1'), 'refused'],
    [hits('.5'), 'refused'],
    [hits('1.'), 'refused'],
    [hits('1e+,"domain":"d"'), 'refused'],
    [hits('true'), 'refused'],
    [hits('[1]'), 'refused'],
    [hits('"NaN"'), 'refused'],
    [hits('Infinity'), 'refused'],
    [rpu('4294967295'), 'ok'],
    [rpu('"42"'), 'ok'],
    [rpu('4294967296'), 'refused'],
    [rpu('-1'), 'refused'],
    // The descriptor's hits_addend is a UInt64Value: its full range.
    [addend64('18446744073709551615'), 'ok'],
    [addend64('"18446744073709551615"'), 'ok'],
    [addend64('9007199254740993'), 'ok'],
    [addend64('1.8446744073709551615e19'), 'ok'],
    [addend64('18446744073709551616'), 'refused'],
    [addend64('1e20'), 'refused'],
    [addend64('{"value":1}'), 'refused'],
    // Enums: a value name, or any int32 number.
    [unit('"MINUTE"'), 'ok'],
    [unit('"UNKNOWN"'), 'ok'],
    [unit('2'), 'ok'],
    [unit('2.0'), 'ok'],
    [unit('99'), 'ok'],
    [unit('-1'), 'ok'],
    [unit('2147483647'), 'ok'],
    [unit('2147483648'), 'refused'],
    [unit('-2147483649'), 'refused'],
    [unit('"minute"'), 'refused'],
    [unit('"WEEK"'), 'refused'],
    [unit('"2"'), 'refused'],
    [unit('1.5'), 'refused'],
  ];
  for (const [body, expected] of table) {
    assert.equal(
      verdict(body),
      expected,
      typeof body === 'string' ? JSON.stringify(body) : body.toString('hex'),
    );
  }
});

test('/json decoding gives the message protojson gives', () => {
  assert.deepEqual(
    decode(
      '{"domain":"d","hits_addend":"7","descriptors":[{"entries":[{"key":"a"}],"hits_addend":0},' +
        '{"entries":[],"hitsAddend":"3","limit":{"requests_per_unit":"5","unit":"MINUTE"}}]}',
    ),
    {
      domain: 'd',
      descriptors: [
        { entries: [{ key: 'a', value: '' }], hitsAddend: { value: 0 } },
        { entries: [], limit: { requestsPerUnit: 5, unit: 'MINUTE' }, hitsAddend: { value: 3 } },
      ],
      hitsAddend: 7,
    },
  );
  // Quoted integers in exponent and fraction forms are integers (the old decoder refused "1e3").
  assert.equal(decode(hits('"1e3"')).hitsAddend, 1000);
  assert.equal(decode(hits('"1.0"')).hitsAddend, 1);
  assert.equal(decode(hits('"-0"')).hitsAddend, 0);
  // Enum numbers: known ones become names, unknown ones are kept for the service to refuse.
  assert.deepEqual(decode(unit('3')).descriptors[0]?.limit, { requestsPerUnit: 0, unit: 'HOUR' });
  assert.deepEqual(decode(unit('9')).descriptors[0]?.limit, { requestsPerUnit: 0, unit: 9 });
  // A uint64 is kept exact: a number up to 2^53 - 1, a bigint past it (the service refuses those).
  assert.deepEqual(decode(addend64('"18446744073709551615"')).descriptors[0]?.hitsAddend, {
    value: 18446744073709551615n,
  });
  assert.deepEqual(decode(addend64('18446744073709551615')).descriptors[0]?.hitsAddend, {
    value: 18446744073709551615n,
  });
  assert.deepEqual(decode(addend64('9007199254740993')).descriptors[0]?.hitsAddend, {
    value: 9007199254740993n,
  });
  assert.deepEqual(decode(addend64('9007199254740991')).descriptors[0]?.hitsAddend, {
    value: 9007199254740991,
  });
  assert.deepEqual(decode('{"domain":null,"descriptors":null,"hitsAddend":null}'), {
    domain: '',
    descriptors: [],
    hitsAddend: 0,
  });
});

test('/json decoding errors say what is wrong and where', () => {
  const cases: [string, string][] = [
    ['{"domain":"basic","bogus":1}', 'unknown field "bogus" in body'],
    [
      '{"descriptors":[{"entries":[{"key":"a","value":"b","x":1}]}]}',
      'unknown field "x" in descriptors[0].entries[0]',
    ],
    ['{"descriptors":[{"limit":{"unit":"DAY","extra":1}}]}', 'unknown field "extra" in descriptors[0].limit'],
    ['{"hitsAddend":null,"hits_addend":2}', 'duplicate field "hits_addend" in body'],
    [
      '{"descriptors":[{"hitsAddend":1,"hits_addend":null}]}',
      'duplicate field "hits_addend" in descriptors[0]',
    ],
    ['[1,2]', 'body must be a JSON object'],
    ['{"domain":5}', 'domain must be a string'],
    ['{"domain":"x","hitsAddend":1.5}', 'hitsAddend must be an integer from 0 to 4294967295'],
    ['{"descriptors":{}}', 'descriptors must be a JSON array'],
    ['{"descriptors":[5]}', 'descriptors[0] must be a JSON object'],
    ['{"descriptors":[{"entries":[[]]}]}', 'descriptors[0].entries[0] must be a JSON object'],
    [
      '{"descriptors":[{"entries":[{"key":"a","value":true}]}]}',
      'descriptors[0].entries[0].value must be a string',
    ],
    [
      '{"descriptors":[{"limit":{"unit":"FORTNIGHT"}}]}',
      'descriptors[0].limit.unit must be a RateLimitUnit name or int32 number',
    ],
    ['{"domain":"\\ud800"}', 'invalid JSON: expected a surrogate pair at offset 11'],
  ];
  for (const [body, message] of cases) {
    assert.throws(() => decode(body), new JsonRequestError(message), body);
  }
  assert.throws(
    () => decode(Buffer.from([0x7b, 0xff, 0x7d])),
    new JsonRequestError('invalid UTF-8 in the body'),
  );
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

interface Message {
  domain: string;
  descriptors: {
    entries: { key: string; value: string }[];
    limit?: { requestsPerUnit: number; unit: string };
    hitsAddend?: { value: number };
  }[];
  hitsAddend: number;
}

const ALPHABET = [
  'a',
  'Z',
  '0',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  '\u0001',
  'é',
  '✓',
  '😀',
  '\u2028',
  '\uffff',
  '_',
  '*',
];
const UNITS = ['UNKNOWN', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR'];

function generateMessage(next: () => number): Message {
  const int = (max: number) => Math.floor(next() * (max + 1));
  const text = () => Array.from({ length: int(6) }, () => ALPHABET[int(ALPHABET.length - 1)]).join('');
  return {
    domain: text(),
    hitsAddend: next() < 0.3 ? 0 : int(next() < 0.1 ? 4_294_967_295 : 20),
    descriptors: Array.from({ length: int(3) }, () => ({
      entries: Array.from({ length: int(3) }, () => ({ key: text(), value: text() })),
      ...(next() < 0.4 && {
        limit: { requestsPerUnit: int(next() < 0.2 ? 4_294_967_295 : 100), unit: UNITS[int(6)] as string },
      }),
      ...(next() < 0.4 && { hitsAddend: { value: int(next() < 0.2 ? Number.MAX_SAFE_INTEGER : 10) } }),
    })),
  };
}

/**
 * Serialises like another protojson writer might: proto or JSON names, fields in any order,
 * defaults left out or written, integers as numbers, strings or exponent forms, enums as names
 * or numbers, strings with \u escapes, white space between tokens.
 */
function protojsonStyle(message: Message, next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const space = () => pick(['', '', ' ', '\n  ', '\t', '\r\n']);
  const string = (value: string) =>
    next() < 0.5
      ? JSON.stringify(value)
      : `"${[...value].map((char) => (char.length === 1 && next() < 0.5 ? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}` : JSON.stringify(char).slice(1, -1))).join('')}"`;
  const integer = (value: number) => {
    const forms = [String(value), `"${value}"`];
    if (value % 10 === 0 && value > 0) forms.push(`${value / 10}e1`, `"${value / 10}E+1"`);
    if (value === 0) forms.push('-0', '"-0"', '0.0e3');
    forms.push(`${value}.0`, `"${value}.00"`);
    return pick(forms);
  };
  // An enum number is a JSON number only: a string is a value name.
  const enumNumber = (value: number) => pick([String(value), `${value}.0`, `${value}e0`]);
  const object = (fields: [string, string | undefined][]) => {
    const present = fields.filter((field): field is [string, string] => field[1] !== undefined);
    present.sort(() => next() - 0.5);
    return `{${space()}${present.map(([name, value]) => `${string(name)}${space()}:${space()}${value}`).join(`,${space()}`)}${space()}}`;
  };
  const orDefault = (value: string | undefined, isDefault: boolean) =>
    isDefault ? pick([undefined, value, 'null']) : value;
  const list = (items: string[]) =>
    items.length === 0
      ? pick([undefined, '[]', 'null'])
      : `[${space()}${items.join(`,${space()}`)}${space()}]`;
  return object([
    ['domain', orDefault(string(message.domain), message.domain === '')],
    [pick(['hitsAddend', 'hits_addend']), orDefault(integer(message.hitsAddend), message.hitsAddend === 0)],
    [
      'descriptors',
      list(
        message.descriptors.map((descriptor) =>
          object([
            [
              'entries',
              list(
                descriptor.entries.map((entry) =>
                  object([
                    ['key', orDefault(string(entry.key), entry.key === '')],
                    ['value', orDefault(string(entry.value), entry.value === '')],
                  ]),
                ),
              ),
            ],
            [
              'limit',
              descriptor.limit &&
                object([
                  [
                    pick(['requestsPerUnit', 'requests_per_unit']),
                    orDefault(
                      integer(descriptor.limit.requestsPerUnit),
                      descriptor.limit.requestsPerUnit === 0,
                    ),
                  ],
                  [
                    'unit',
                    orDefault(
                      next() < 0.5
                        ? string(descriptor.limit.unit)
                        : enumNumber(UNITS.indexOf(descriptor.limit.unit)),
                      descriptor.limit.unit === 'UNKNOWN',
                    ),
                  ],
                ]),
            ],
            [
              pick(['hitsAddend', 'hits_addend']),
              descriptor.hitsAddend && integer(descriptor.hitsAddend.value),
            ],
          ]),
        ),
      ),
    ],
  ]);
}

test('property: JSON.stringify and a protojson-style writer of one request decode to the same message', () => {
  const next = random(20_261_125);
  for (let i = 0; i < 2000; i++) {
    const message = generateMessage(next);
    // The proto3 JSON form of the message: a UInt64Value is its bare value.
    const json = {
      ...message,
      descriptors: message.descriptors.map(({ hitsAddend, ...rest }) => ({
        ...rest,
        ...(hitsAddend && { hitsAddend: hitsAddend.value }),
      })),
    };
    const viaStringify = decode(JSON.stringify(json));
    const styled = protojsonStyle(message, next);
    const viaProtojson = decode(styled);
    assert.deepEqual(viaStringify, message, `case ${i}: ${JSON.stringify(json)}`);
    assert.deepEqual(viaProtojson, viaStringify, `case ${i}: ${styled}`);
  }
});
