import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRateLimitRequest } from '../src/server/json-codec.js';
import { scanRateLimitRequest } from '../src/server/json-request-scanner.js';

const COMMON = [
  '{"domain":"bench","descriptors":[{"entries":[{"key":"client","value":"frontend"}]}]}',
  // JSON.stringify's shape with several descriptors and entries, and text outside ASCII.
  '{"domain":"ünï","descriptors":[{"entries":[{"key":"a","value":"1"},{"key":"b","value":""}]},' +
    '{"entries":[{"key":"","value":"✓ \u2028"}]}]}',
  ' { "domain" : "d" ,\n\t"hits_addend" : 7 , "descriptors" : [ ] }\r\n',
  '{"descriptors":[{"entries":[{"key":"a"},{"value":"only-value"},{}]},{}],"domain":"ünï ✓"}',
  '{"domain":"d","descriptors":[{"entries":[{"key":"a","value":"b"}],"hitsAddend":0,' +
    '"limit":{"requests_per_unit":5,"unit":"MINUTE"}},{"entries":[],"hits_addend":999999999999999,' +
    '"limit":{"unit":3,"requestsPerUnit":4294967295}},{"limit":{"unit":12}},{"limit":{}}]}',
  '{"domain":"d","hitsAddend":0,"descriptors":[{"entries":[{"value":"v","key":"k"}]}]}',
  '{}',
];

/** Either the scanner leaves the body to the full decoder, or both give the same request. */
function assertSameAsFullDecoder(body: string): void {
  const scanned = scanRateLimitRequest(body);
  if (scanned === undefined) return;
  assert.deepEqual(scanned, parseRateLimitRequest(body), body);
}

test('the scanner reads the common shapes, exactly as the full decoder does', () => {
  for (const body of COMMON) {
    assert.notEqual(scanRateLimitRequest(body), undefined, body);
    assertSameAsFullDecoder(body);
  }
});

test('everything outside the common shape goes to the full decoder', () => {
  const others = [
    '',
    '{',
    '{"domain":"a","domain":"b"}',
    '{"hitsAddend":1,"hits_addend":1}',
    '{"domain":null}',
    '{"domain":"\\u0041"}',
    '{"domain":"a\tb"}',
    '{"hitsAddend":"7"}',
    '{"hitsAddend":1.0}',
    '{"hitsAddend":1e3}',
    '{"hitsAddend":-1}',
    '{"hitsAddend":01}',
    '{"hitsAddend":4294967296}',
    '{"descriptors":[{"hitsAddend":1234567890123456}]}',
    '{"descriptors":[{"limit":{"unit":"FORTNIGHT"}}]}',
    '{"descriptors":[{"limit":null}]}',
    '{"bogus":1}',
    '{"__proto__":{}}',
    '{"domain":"x"} x',
    '\uFEFF{"domain":"x"}',
    '{"domain":"x",}',
    '{"descriptors":[,]}',
    '[]',
  ];
  for (const body of others) assert.equal(scanRateLimitRequest(body), undefined, body);
});

test('mutated bodies: the scanner never disagrees with the full decoder', () => {
  // A fixed-seed generator, so a failure is reproducible.
  let seed = 42;
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const alphabet = '{}[]:," \\0129-.eEnulltrueDAYMINUTEkeyvaluehits_addendAdomainentrieslimit\u00e9\u2028';
  for (let round = 0; round < 20_000; round++) {
    let body = COMMON[random(COMMON.length)] as string;
    for (let edits = 1 + random(3); edits > 0; edits--) {
      const at = random(body.length + 1);
      const piece = alphabet.slice(random(alphabet.length), random(alphabet.length) + 1);
      switch (random(3)) {
        case 0:
          body = body.slice(0, at) + piece + body.slice(at);
          break;
        case 1:
          body = body.slice(0, at) + body.slice(at + 1 + random(4));
          break;
        default:
          body = body.slice(0, at) + piece + body.slice(at + piece.length);
      }
    }
    assertSameAsFullDecoder(body);
  }
});
