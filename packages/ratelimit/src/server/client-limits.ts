import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { closeLingering, type LingeringBounds } from './lingering-close.js';

/**
 * How long an HTTP client may take to send its headers, and its whole request; how long and how
 * much it may go on sending after an early answer (lingering-close.ts).
 */
export interface HttpClientLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly lingering: LingeringBounds;
}

/** Longest wait between Node's checks of the two timeouts; a timeout fires up to this late. */
const MAX_CHECK_INTERVAL_MS = 1000;

/**
 * An HTTP/1.1 server whose clients cannot hold a connection by sending slowly or sending
 * garbage: the headers and the whole request have deadlines, and a client error answers and
 * then closes the socket.
 */
export function boundedHttpServer(limits: HttpClientLimits, listener: RequestListener): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(MAX_CHECK_INTERVAL_MS, limits.headersTimeoutMs),
    },
    listener,
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    refuseClient(error, socket, limits.lingering),
  );
  return server;
}

/**
 * Answers a request Node could not parse or that ran out of time. A client that ran out of time
 * is slow, not still sending: its socket is destroyed at once. Any other (headers too large, a
 * malformed request) may still be sending, so its socket closes lingering, within the bounds, as
 * Node calls this again for every chunk that arrives after the error. Ending it without bounds
 * would leave it half open (the HTTP server allows that) for as long as a client likes.
 */
function refuseClient(error: NodeJS.ErrnoException, socket: Socket, lingering: LingeringBounds): void {
  if (socket.writable) socket.write(`HTTP/1.1 ${statusFor(error.code)}\r\nConnection: close\r\n\r\n`);
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.destroy();
  else closeLingering(socket, lingering);
}

function statusFor(code: string | undefined): string {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return '408 Request Timeout';
  if (code === 'HPE_HEADER_OVERFLOW') return '431 Request Header Fields Too Large';
  return '400 Bad Request';
}
