import type { Readable } from 'node:stream';

export type StreamBody = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Readable;

/**
 * A finished answer, independent of the interface that sends it. `passThrough` carries a web
 * `Response` a handler returned, which goes out unchanged.
 */
export interface Outcome {
  readonly status: number;
  readonly contentType: string | undefined;
  /** Extra headers; null when neither the handler nor an error set any (the common case). */
  readonly headers: Headers | null;
  readonly body: string | Uint8Array | StreamBody | null;
  readonly passThrough?: Response;
}

/**
 * An outcome still to come (a body being read, an async handler). Its one receiver is called in
 * the tick the outcome exists, with no promise in between: the Node interface then answers inside
 * the request body's `end` event, as a hand-written node:http server does, and the fetch
 * interface resolves the one promise it returns. The first outcome given wins (the 503 of a
 * timeout, say, over a handler that finishes later).
 */
export class PendingOutcome {
  #outcome: Outcome | undefined;
  #receiver: ((outcome: Outcome) => void) | undefined;

  resolve(outcome: Outcome): void {
    if (this.#outcome !== undefined) return;
    this.#outcome = outcome;
    const receiver = this.#receiver;
    if (receiver !== undefined) {
      this.#receiver = undefined;
      receiver(outcome);
    }
  }

  /** Calls `receiver` with the outcome, now if it exists already. */
  receive(receiver: (outcome: Outcome) => void): void {
    if (this.#outcome === undefined) this.#receiver = receiver;
    else receiver(this.#outcome);
  }

  /** The outcome as a promise, for callers that await it. */
  promise(): Promise<Outcome> {
    return new Promise((resolve) => this.receive(resolve));
  }
}
