import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { LingeringClose } from './lingering-close.js';

/** Longest request target (path and query) served; longer ones get 414 (Node's own header limit is 16 KiB). */
export const MAX_URL_LENGTH = 8192;

interface FrameworkProblem {
  status: number;
  code: string;
  detail: string;
}

/**
 * Our stable codes (and messages a caller can act on) for the errors fastify raises itself, so no
 * FST_ERR_* code reaches a client. Codes fastify may add later fall back to one per status.
 */
const MALFORMED_JSON = { code: 'MALFORMED_JSON', detail: 'The request body is not valid JSON.' };
const FRAMEWORK_PROBLEMS: Record<string, Omit<FrameworkProblem, 'status'>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'BODY_TOO_LARGE',
    detail: 'The request body exceeds the limit of 1 MiB.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    detail: 'Send request bodies as application/json.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'INVALID_CONTENT_LENGTH',
    detail: 'The Content-Length header does not match the body that was sent.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'EMPTY_JSON_BODY',
    detail: 'The Content-Type is application/json but the body is empty; send a JSON document.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: MALFORMED_JSON,
  FST_ERR_BAD_URL: { code: 'MALFORMED_URL', detail: 'The request path is not a valid URL path.' },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'PATH_SEGMENT_TOO_LONG',
    detail: 'A path segment is over 100 characters; no resource has such an id.',
  },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'BAD_REQUEST', detail: 'The request cannot be routed.' },
};

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  404: 'ROUTE_NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  413: 'BODY_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  431: 'HEADERS_TOO_LARGE',
};

/** The problem for a 4xx error raised by fastify or a plugin (not by our code). */
export function frameworkProblem(
  error: { code?: string; message: string },
  status: number,
): FrameworkProblem {
  const known = error.code === undefined ? undefined : FRAMEWORK_PROBLEMS[error.code];
  if (known !== undefined) return { status, ...known };
  if (error.code !== undefined && !error.code.startsWith('FST_')) {
    return { status, code: error.code, detail: error.message };
  }
  // JSON.parse's own SyntaxError arrives without a code.
  if (error instanceof SyntaxError) return { status, ...MALFORMED_JSON };
  return {
    status,
    code: CODE_BY_STATUS[status] ?? 'BAD_REQUEST',
    detail: STATUS_CODES[status] ?? 'Bad request',
  };
}

/** onRequest: a request target over MAX_URL_LENGTH is refused before any work is done. */
export function rejectLongUrls(request: FastifyRequest): void {
  if (request.url.length > MAX_URL_LENGTH) {
    throw new AppError(
      'uri_too_long',
      'URI_TOO_LONG',
      `The request target is ${request.url.length} characters long; the limit is ${MAX_URL_LENGTH}.`,
    );
  }
}

const HAS_BODY_HEADERS = ['content-length', 'transfer-encoding'];

/**
 * preParsing: a body sent with a Content-Encoding (gzip, br, ...) is refused with 415, as the service
 * decodes none; parsing it as plain JSON would read garbage or, worse, a different document.
 */
export function rejectEncodedBodies(request: FastifyRequest): void {
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding === undefined || encoding === '' || encoding === 'identity') return;
  const hasBody = HAS_BODY_HEADERS.some((name) => request.headers[name] !== undefined);
  if (!hasBody || request.headers['content-length'] === '0') return;
  throw new AppError(
    'unsupported_media_type',
    'UNSUPPORTED_CONTENT_ENCODING',
    `Content-Encoding '${encoding}' is not supported; send the body unencoded (identity).`,
  );
}

/**
 * Errors Node's HTTP parser raises before fastify sees a request (headers over 16 KiB, malformed
 * requests, timeouts) answered with problem details instead of fastify's `{"error": ...}` JSON, then
 * closed with a lingering close, as the app's own early answers are: the client may still be sending.
 */
export function clientErrorHandler(lingering: LingeringClose) {
  return function answerParserError(error: NodeJS.ErrnoException, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed || lingering.isLingering(socket)) return;
    // As Node does: no answer into a response already under way; a second status line would corrupt it.
    const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy(error);
      return;
    }
    const { status, detail } = parserProblem(error.code);
    const body = JSON.stringify({
      type: 'about:blank',
      title: STATUS_CODES[status],
      status,
      detail,
      instance: '/',
      code: CODE_BY_STATUS[status],
    });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        'X-Frame-Options: DENY\r\n' +
        'Cache-Control: no-cache, no-store, max-age=0, must-revalidate\r\n' +
        'Connection: close\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    lingering.afterParserError(socket);
  };
}

/** The status for a parser error, with a detail a caller can act on. */
function parserProblem(code: string | undefined): { status: number; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        detail:
          'The request line and headers exceed 16 KiB; send fewer or smaller headers (cookies included).',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: 'The request was not received in time.' };
    default:
      return { status: 400, detail: 'The request could not be parsed as HTTP/1.1.' };
  }
}
