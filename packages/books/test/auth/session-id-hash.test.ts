import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { SessionIdHasher } from '../../src/auth/session-id-hash.js';

const SECRET = 'a-session-secret-of-thirty-two-chars!';
const hmac = (id: string) => createHmac('sha256', SECRET).update(id).digest('base64url');
const issuedId = () => randomBytes(32).toString('base64url');

test('the key is the HMAC-SHA256 of the cookie value, remembered or not (stored sessions stay valid)', () => {
  const hasher = new SessionIdHasher(SECRET, 2);
  const ids = [issuedId(), issuedId(), issuedId()];
  for (const id of [...ids, ...ids, ...ids.reverse()]) assert.equal(hasher.hash(id), hmac(id));
});

test('at most maxEntries keys are remembered, the oldest dropped first', () => {
  const hasher = new SessionIdHasher(SECRET, 3);
  for (let i = 0; i < 10; i++) hasher.hash(issuedId());
  assert.equal(hasher.size, 3);
});

test('cookie values that are not shaped like an issued id are hashed but never remembered', () => {
  const hasher = new SessionIdHasher(SECRET, 100);
  for (const junk of ['x'.repeat(10_000), 'short', `${issuedId()}!`, '', 'é'.repeat(43)]) {
    assert.equal(hasher.hash(junk), hmac(junk));
  }
  assert.equal(hasher.size, 0);
});
