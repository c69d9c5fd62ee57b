import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { frame, MessageReader, PREFIX_BYTES } from '../../src/server/h2/framing.js';
import { Code } from '../../src/server/h2/status.js';
import { parseGrpcTimeout } from '../../src/server/h2/timeout.js';
import { seededRandom as random } from '../helpers/seeded-random.js';

const MAX = 1024;

function compressed(message: Buffer): Buffer {
  const body = gzipSync(message);
  const out = Buffer.alloc(PREFIX_BYTES + body.length);
  out[0] = 1;
  out.writeUInt32BE(body.length, 1);
  body.copy(out, PREFIX_BYTES);
  return out;
}

/** Cuts `bytes` at random points into chunks of 0 to 2 × average bytes. */
function randomChunks(bytes: Buffer, next: () => number, average: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = Math.min(bytes.length - at, Math.floor(next() * 2 * average));
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

function readAll(reader: MessageReader, chunks: readonly Buffer[]) {
  const messages: string[] = [];
  for (const chunk of chunks) {
    const problem = reader.push(chunk, (message) => messages.push(message.toString('hex')));
    if (problem) return { messages, problem };
  }
  return { messages, problem: reader.end() };
}

test('fuzz: valid frames, split and joined at random, identity and gzip, come out whole and in order', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const next = random(seed);
    const gzip = seed % 2 === 0;
    const messages = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
      Buffer.from(Array.from({ length: Math.floor(next() * 300) }, () => Math.floor(next() * 256))),
    );
    const body = Buffer.concat(
      messages.map((message) => (gzip && next() < 0.5 ? compressed(message) : frame(message))),
    );
    const average = [1, 3, 7, 64, 1000][seed % 5] as number;
    const { messages: out, problem } = readAll(
      new MessageReader(MAX, gzip ? 'gzip' : 'identity'),
      randomChunks(body, next, average),
    );
    assert.equal(problem, undefined, `seed ${seed}`);
    assert.deepEqual(
      out,
      messages.map((message) => message.toString('hex')),
      `seed ${seed}`,
    );
  }
});

test('fuzz: a body cut short anywhere ends with INTERNAL, never a message that was not sent', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const next = random(seed);
    const message = Buffer.alloc(1 + Math.floor(next() * 200), seed);
    const whole = frame(message);
    const cut = whole.subarray(0, Math.floor(next() * whole.length));
    const { messages, problem } = readAll(new MessageReader(MAX, 'identity'), randomChunks(cut, next, 5));
    assert.deepEqual(messages, [], `seed ${seed}`);
    assert.equal(cut.length === 0 ? problem : problem?.code, cut.length === 0 ? undefined : Code.INTERNAL);
  }
});

test('fuzz: a prefix announcing more than the limit is refused at once, before its bytes are kept', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const next = random(seed);
    const length = MAX + 1 + Math.floor(next() * 0xfffffff0);
    const prefix = Buffer.alloc(PREFIX_BYTES);
    prefix.writeUInt32BE(Math.min(length, 0xffffffff), 1);
    // Only the prefix and a little of the body: the reader must not wait for (or allocate) the rest.
    const body = Buffer.concat([frame(Buffer.from('ok')), prefix, Buffer.alloc(10)]);
    const { messages, problem } = readAll(new MessageReader(MAX, 'identity'), randomChunks(body, next, 3));
    assert.deepEqual(messages, [Buffer.from('ok').toString('hex')]);
    assert.equal(problem?.code, Code.RESOURCE_EXHAUSTED, `seed ${seed}`);
    assert.match(problem?.details ?? '', /received message larger than max \(\d+ vs\. 1024\)/);
  }
});

test('fuzz: random bytes end in a status or wait for more, and never keep more than one message', () => {
  const before = process.memoryUsage().arrayBuffers;
  for (let seed = 1; seed <= 2000; seed++) {
    const next = random(seed);
    const bytes = Buffer.from(
      Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * 256)),
    );
    const reader = new MessageReader(MAX, next() < 0.5 ? 'gzip' : 'identity');
    const { messages, problem } = readAll(reader, randomChunks(bytes, next, 4));
    for (const message of messages) assert.ok(message.length / 2 <= MAX);
    if (problem)
      assert.ok([Code.INTERNAL, Code.RESOURCE_EXHAUSTED].includes(problem.code as never), `seed ${seed}`);
  }
  // Every reader above is garbage now; none of them allocated its announced (up to 4 GiB) length.
  assert.ok(process.memoryUsage().arrayBuffers - before < 64 * 1024 * 1024);
});

test('gzip: a message that inflates past the limit is RESOURCE_EXHAUSTED, a broken one INTERNAL', () => {
  const bomb = compressed(Buffer.alloc(MAX * 100));
  assert.ok(bomb.length < MAX, 'the compressed bomb itself is within the limit');
  const reader = new MessageReader(MAX, 'gzip');
  assert.equal(reader.push(bomb, () => assert.fail('no message'))?.code, Code.RESOURCE_EXHAUSTED);
  const broken = Buffer.from(compressed(Buffer.from('hello')));
  broken.fill(0, PREFIX_BYTES + 10);
  assert.equal(new MessageReader(MAX, 'gzip').push(broken, () => {})?.code, Code.INTERNAL);
});

test('a compressed flag without grpc-encoding, and a flag other than 0 and 1, are INTERNAL', () => {
  assert.match(
    new MessageReader(MAX, 'identity').push(compressed(Buffer.from('x')), () => {})?.details ?? '',
    /compressed message without grpc-encoding/,
  );
  const flagged = frame(Buffer.from('x'));
  flagged[0] = 2;
  assert.equal(new MessageReader(MAX, 'identity').push(flagged, () => {})?.code, Code.INTERNAL);
});

test('a message of exactly the limit passes; an empty message is a message', () => {
  const messages: number[] = [];
  const reader = new MessageReader(MAX, 'identity');
  assert.equal(
    reader.push(Buffer.concat([frame(Buffer.alloc(MAX)), frame(Buffer.alloc(0))]), (m) =>
      messages.push(m.length),
    ),
    undefined,
  );
  assert.deepEqual(messages, [MAX, 0]);
});

test('grpc-timeout in every unit, and malformed values', () => {
  assert.equal(parseGrpcTimeout('2H'), 7_200_000);
  assert.equal(parseGrpcTimeout('3M'), 180_000);
  assert.equal(parseGrpcTimeout('4S'), 4000);
  assert.equal(parseGrpcTimeout('500m'), 500);
  assert.equal(parseGrpcTimeout('1500u'), 1.5);
  assert.equal(parseGrpcTimeout('2000000n'), 2);
  assert.equal(parseGrpcTimeout('99999999H'), 99_999_999 * 3_600_000);
  assert.equal(parseGrpcTimeout(undefined), undefined);
  for (const bad of ['', '1', 'S', '123456789S', '1.5S', '-1S', '10s', '1 S']) {
    assert.ok(Number.isNaN(parseGrpcTimeout(bad)), bad);
  }
});
