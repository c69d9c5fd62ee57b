import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/** How long and how much of a request body is read and dropped after an early answer (LINGERING_CLOSE_*). */
export interface LingeringBounds {
  timeMs: number;
  bytes: number;
}

type Ending = 'body ended' | 'client ended' | 'time bound' | 'byte bound' | 'client closed';

/**
 * What nginx calls a lingering close. An answer sent before the request body has arrived (401, 403, 413,
 * 415, a 404 for a POST, ...) goes out with `Connection: close`, and so does the answer to a request Node's
 * HTTP parser refused (431 for headers over 16 KiB, 400 for a malformed request). Node would then destroy
 * the socket as soon as the answer is written, with request bytes still arriving: the kernel answers those
 * with a reset, and a client still sending (undici's fetch, for one) loses the answer it had not read yet.
 * Instead the sending side is shut down (FIN after the answer) and the rest of what the client sends is
 * read and dropped until the client stops (it has seen the answer), the body ends, or a bound is reached,
 * and only then is the socket destroyed. Without `Connection: close`, Node would read such a body to its
 * end, however long: the bounds apply to every early answer.
 */
export class LingeringClose {
  readonly #sockets = new Set<Socket>();
  #log: FastifyBaseLogger | undefined;

  constructor(private readonly bounds: LingeringBounds) {}

  /** Lingers after every answer the app sends before the request is complete; ends the drains on close. */
  attach(app: FastifyInstance): void {
    this.#log = app.log;
    app.addHook('onSend', async (request, reply, payload) => {
      const socket = request.raw.socket;
      if (request.raw.complete || this.#sockets.has(socket)) return payload;
      reply.header('connection', 'close');
      this.#drain(socket, request.raw, 'body ended', request.log);
      // Node calls this once the answer with `Connection: close` is written; half-close instead of destroying.
      socket.destroySoon = () => {
        socket.end();
      };
      return payload;
    });
    app.addHook('onClose', async () => {
      for (const socket of this.#sockets) socket.destroy();
    });
  }

  /** True while the socket drains: a parser error it raises then (the client's FIN mid-body) is no news. */
  isLingering(socket: Socket): boolean {
    return this.#sockets.has(socket);
  }

  /**
   * Lingers after the answer to a request Node's parser refused, written on the socket by the caller. The
   * parser holds the socket (it reads it in C++) and would raise its error again for every chunk that
   * arrives: a 'data' listener added through the `on` node:http wraps takes the socket back from it, and
   * the server's own 'data' and 'end' listeners, which feed that parser, are dropped.
   */
  afterParserError(socket: Socket): void {
    const ownListeners = new Set([...socket.listeners('data'), ...socket.listeners('end')]);
    this.#drain(socket, socket, 'client ended', this.#log);
    for (const event of ['data', 'end'] as const) {
      for (const listener of socket.listeners(event)) {
        if (ownListeners.has(listener)) socket.off(event, listener as () => void);
      }
    }
    socket.end();
  }

  /** Counts and drops what `body` still delivers until it ends, the client goes, or a bound is reached. */
  #drain(socket: Socket, body: Readable, bodyEnding: Ending, log: FastifyBaseLogger | undefined): void {
    this.#sockets.add(socket);
    let drained = 0;
    const end = (ending: Ending) => {
      if (!this.#sockets.delete(socket)) return;
      clearTimeout(timer);
      log?.debug(
        { drainedBytes: drained, ending },
        'early answer: connection closed after draining the body',
      );
      // The client sent all it meant to, so closing now resets nothing it waits for; the answer is let out
      // first. At a bound the client is not listening; it gets what is on its way.
      const inputEnded = ending === bodyEnding || ending === 'client ended';
      if (inputEnded && !socket.writableFinished) socket.once('finish', () => socket.destroy());
      else socket.destroy();
    };
    const timer = setTimeout(() => end('time bound'), this.bounds.timeMs);
    // Reading the body here (rather than letting Node dump it) counts it, and keeps it flowing.
    body.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > this.bounds.bytes) end('byte bound');
    });
    body.once('end', () => end(bodyEnding));
    socket.once('end', () => end('client ended'));
    socket.once('close', () => end('client closed'));
  }
}
