import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type LingerBounds, linger } from '../http/linger.js';
import { errorBody, JSON_TYPE } from '../http/render.js';

/** node:http's `clientError` event: a request its parser refused, before any handler saw it. */
export type ClientErrorListener = (error: NodeJS.ErrnoException, socket: Duplex) => void;

/** The answer Node itself would give for each parser error (its `socketOnError`), with our bodies. */
function refusal(code: string | undefined): [status: number, message: string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'the request head is larger than the server accepts'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'the chunk extensions are larger than the server accepts'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request did not arrive within the server’s timeout'];
    default:
      return [400, 'the request is not valid HTTP'];
  }
}

/**
 * Answers what Node's parser refuses (431 for a header past `maxHeaderSize`, 400 for a malformed
 * request, …) as Node would, then closes the connection with the same lingering close as the
 * app's early answers: Node's own handler destroys the socket right after the answer, and a client
 * still sending its header then gets a reset instead of the 431. `server.on('clientError',
 * app.clientError)`; the CLI attaches it.
 */
export function clientErrorInterface(bounds: LingerBounds): ClientErrorListener {
  return (error, socket) => {
    // A reset or a closed socket has no one left to answer.
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // As Node does: no answer into a response that has begun (`_httpMessage` is the response the
    // socket is writing, node:http's own field), since a second status line would corrupt it.
    const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, message] = refusal(error.code);
    const body = errorBody(message);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    linger(socket, bounds);
  };
}
