import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long an HTTP client may take to send its headers, and its whole request. */
export interface HttpTimeouts {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
}

/** Longest wait between Node's checks of the two timeouts; a timeout fires up to this late. */
const MAX_CHECK_INTERVAL_MS = 1000;

/**
 * An HTTP/1.1 server whose clients cannot hold a connection by sending slowly or sending
 * garbage: the headers and the whole request have deadlines, and a client error answers and
 * then closes the socket.
 */
export function boundedHttpServer(timeouts: HttpTimeouts, listener: RequestListener): Server {
  const server = createServer(
    {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(MAX_CHECK_INTERVAL_MS, timeouts.headersTimeoutMs),
    },
    listener,
  );
  server.on('clientError', refuseClient);
  return server;
}

/**
 * Answers a request Node could not parse or that ran out of time, then destroys the socket.
 * Ending it instead would leave it half open (the HTTP server allows that) for as long as a
 * client that never reads or closes likes, one descriptor each.
 */
function refuseClient(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (socket.writable) socket.write(`HTTP/1.1 ${statusFor(error.code)}\r\nConnection: close\r\n\r\n`);
  socket.destroy();
}

function statusFor(code: string | undefined): string {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return '408 Request Timeout';
  if (code === 'HPE_HEADER_OVERFLOW') return '431 Request Header Fields Too Large';
  return '400 Bad Request';
}
