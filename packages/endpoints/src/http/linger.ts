import type { Duplex } from 'node:stream';

/**
 * How long and how much a connection is drained after an early answer (nginx's lingering close):
 * `time` from the answer to the close at most (nginx's `lingering_time`), `idle` without a byte
 * arriving (its `lingering_timeout`), and `bytes` read and discarded (Tomcat's `maxSwallowSize`),
 * after which reading stops and the idle bound runs out.
 */
export interface LingerBounds {
  readonly time: number;
  readonly idle: number;
  readonly bytes: number;
}

const LINGERS = Symbol('@platform/endpoints.lingers');

type LingeringSocket = Duplex & {
  bytesRead: number;
  destroySoon?: () => void;
  [LINGERS]?: 'armed' | 'draining';
};

/**
 * Makes the connection close the way nginx's lingering close does once Node has written the
 * answer that says `Connection: close`. Node ends such a connection with `socket.destroySoon()`
 * (node:http's `resOnFinish`; @hono/node-server's own drain calls it too), which destroys the
 * socket as soon as the answer is written. A client still sending then has unread bytes in the
 * server's receive buffer, so the kernel answers the close with a reset, and a client that meets
 * the reset while writing (Node's http client, undici, a raw Node socket) drops the answer it has
 * not read yet. So this socket's `destroySoon` lingers instead.
 */
export function lingerOnClose(socket: Duplex, bounds: LingerBounds): void {
  const lingering = socket as LingeringSocket;
  if (lingering[LINGERS] !== undefined) return;
  lingering[LINGERS] = 'armed';
  lingering.destroySoon = () => linger(lingering, bounds);
}

/**
 * Shuts down the sending side (the FIN follows the answer), then reads and discards what still
 * arrives until the client closes its side or a bound is reached, and only then destroys the
 * socket. A client that reads the answer stops sending and closes, which ends the drain at once.
 */
export function linger(socket: Duplex, bounds: LingerBounds): void {
  const lingering = socket as LingeringSocket;
  if (lingering.destroyed || lingering[LINGERS] === 'draining') return;
  lingering[LINGERS] = 'draining';
  const close = () => socket.destroy();
  const start = lingering.bytesRead;
  const whole = setTimeout(close, bounds.time);
  const idle = setTimeout(close, bounds.idle);
  const discard = () => {
    if (lingering.bytesRead - start <= bounds.bytes) {
      idle.refresh();
      return;
    }
    // Past the byte bound reading stops, and the idle bound runs out. Not a close at once: a
    // client that reads only when a write of its own stalls (undici, Node's own sockets, in a loop
    // of writes the kernel keeps taking) has not seen the answer yet, and the reset would drop it.
    // Its writes stall now, and it has the idle bound to read the answer and the FIN, and stop.
    socket.off('data', discard);
    socket.pause();
  };
  // Node's HTTP server feeds the socket to its parser in C++; a 'data' listener, added through the
  // `on` that server wraps, takes it back, and dropping the parser's own listeners then leaves
  // nothing that could read what follows the body as another request.
  socket.on('data', discard);
  for (const listener of socket.listeners('data'))
    if (listener !== discard) socket.off('data', listener as () => void);
  for (const listener of socket.listeners('end')) socket.off('end', listener as () => void);
  socket.on('end', close);
  socket.once('close', () => {
    clearTimeout(whole);
    clearTimeout(idle);
  });
  socket.end();
  socket.resume();
}
