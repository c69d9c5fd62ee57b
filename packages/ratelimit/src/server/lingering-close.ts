import type { Socket } from 'node:net';

/** How long, and how many bytes, a lingering close reads and discards before it destroys the socket. */
export interface LingeringBounds {
  /** HTTP_LINGERING_TIME: counted from the early answer (nginx's lingering_time, 30 s there too). */
  readonly timeMs: number;
  /** HTTP_LINGERING_MAX_BYTES: bytes read after the early answer. */
  readonly maxBytes: number;
}

/** Each lingering socket's bytesRead when its lingering began. */
const lingering = new WeakMap<Socket, number>();

/**
 * nginx's lingering close, for an answer given while the client is still sending (a body over
 * the limit, headers too large): destroying the socket with unread bytes in its receive buffer
 * makes the kernel send a reset, and a reset makes the client's kernel drop the answer the client
 * had not read yet. So the sending side is shut down once the answer is flushed (the client sees
 * the answer, then the end), and what the client still sends is read and discarded until it
 * closes its side, or the time or byte bound is reached: only then is the socket destroyed.
 *
 * Called again for a socket already lingering (one more chunk arrived), it checks the byte bound.
 */
export function closeLingering(socket: Socket, bounds: LingeringBounds): void {
  const start = lingering.get(socket);
  if (start !== undefined) {
    if (socket.bytesRead - start > bounds.maxBytes) socket.destroy();
    return;
  }
  if (socket.destroyed) return;
  lingering.set(socket, socket.bytesRead);
  const timer = setTimeout(() => socket.destroy(), bounds.timeMs);
  socket.once('close', () => clearTimeout(timer));
  // The client closed its side: everything it sent is read, so nothing is left to reset.
  socket.once('end', () => socket.destroy());
  socket.end();
  // Reading goes on even with no reader left (the HTTP parser, or no one after a parse error).
  socket.resume();
}

/**
 * Makes Node's HTTP server linger on this socket when it closes it after a `Connection: close`
 * answer: the server closes such a socket with `destroySoon()`, which destroys it as soon as the
 * answer is flushed, reset included.
 */
export function lingerOnClose(socket: Socket, bounds: LingeringBounds): void {
  socket.destroySoon = () => closeLingering(socket, bounds);
}
