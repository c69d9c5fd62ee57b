import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/** How long and how much of a request body is read and dropped after an early answer (LINGERING_CLOSE_*). */
export interface LingeringBounds {
  timeMs: number;
  bytes: number;
}

type Ending = 'body ended' | 'time bound' | 'byte bound' | 'client closed';

/**
 * What nginx calls a lingering close. An answer sent before the request body has arrived (401, 403, 413,
 * 415, a 404 for a POST, ...) goes out with `Connection: close`. Node's HTTP server would then destroy the
 * socket as soon as the answer is written, with request bytes still arriving: the kernel answers those
 * with a reset, and a client still sending (undici's fetch, for one) loses the answer it had not read yet.
 * Instead the sending side is shut down (FIN after the answer) and the rest of the body is read and
 * dropped until the client stops (it has seen the answer), the body ends, or a bound is reached, and only
 * then is the socket destroyed. Without `Connection: close`, Node would read such a body to its end,
 * however long: the bounds apply to every early answer.
 */
export function lingeringClose(app: FastifyInstance, bounds: LingeringBounds): void {
  const lingering = new Set<Socket>();
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.raw.complete || lingering.has(request.raw.socket)) return payload;
    reply.header('connection', 'close');
    drainThenClose(request.raw, bounds, request.log, lingering);
    return payload;
  });
  app.addHook('onClose', async () => {
    for (const socket of lingering) socket.destroy();
  });
}

function drainThenClose(
  request: IncomingMessage,
  bounds: LingeringBounds,
  log: FastifyBaseLogger,
  lingering: Set<Socket>,
): void {
  const socket = request.socket;
  lingering.add(socket);
  let drained = 0;
  const end = (ending: Ending) => {
    if (!lingering.delete(socket)) return;
    clearTimeout(timer);
    log.debug({ drainedBytes: drained, ending }, 'early answer: connection closed after draining the body');
    // The body ended: the client sent all it meant to, so closing now resets nothing it waits for; the
    // answer is let out first. At a bound the client is not listening; it gets what is on its way.
    if (ending === 'body ended' && !socket.writableFinished) socket.once('finish', () => socket.destroy());
    else socket.destroy();
  };
  const timer = setTimeout(() => end('time bound'), bounds.timeMs);
  // Reading the body here (rather than letting Node dump it) counts it, and keeps it flowing.
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > bounds.bytes) end('byte bound');
  });
  request.once('end', () => end('body ended'));
  socket.once('close', () => end('client closed'));
  // Node calls this once the answer with `Connection: close` is written; half-close instead of destroying.
  socket.destroySoon = () => {
    socket.end();
  };
}
