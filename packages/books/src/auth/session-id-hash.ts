import { createHmac } from 'node:crypto';

/** The shape of a cookie value this service issues: 32 random bytes, base64url (see DatabaseSessionStore.create). */
const ISSUED_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * The stored key of a session cookie value: HMAC-SHA256 under the session secret, base64url, so a
 * leaked sessions table holds no usable cookie. Every request with a session asks for it again and an
 * HMAC costs about 11 µs, so the keys of the last `maxEntries` cookie values are remembered (oldest
 * dropped first). Only values shaped like an id this service issues are remembered, so a client sending
 * long junk cookies cannot make the memory grow past about 1 MB per 10,000 entries.
 */
export class SessionIdHasher {
  private readonly known = new Map<string, string>();

  constructor(
    private readonly secret: string,
    private readonly maxEntries = 10_000,
  ) {}

  hash(id: string): string {
    const remembered = this.known.get(id);
    if (remembered !== undefined) return remembered;
    const hash = createHmac('sha256', this.secret).update(id).digest('base64url');
    if (this.maxEntries > 0 && ISSUED_ID.test(id)) {
      if (this.known.size >= this.maxEntries) {
        const oldest = this.known.keys().next().value;
        if (oldest !== undefined) this.known.delete(oldest);
      }
      this.known.set(id, hash);
    }
    return hash;
  }

  /** How many keys are remembered (at most `maxEntries`). */
  get size(): number {
    return this.known.size;
  }
}
