import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../log.js';
import { isTracingActive, timedSpan } from '../observability/spans.js';
import type { RateLimitResponse } from '../service/messages.js';
import type { RateLimitService } from '../service/ratelimit-service.js';
import { boundedHttpServer, type HttpClientLimits } from './client-limits.js';
import type { HealthModel } from './health.js';
import { decodeRateLimitRequest } from './json-request-decoder.js';
import { type EncodedJson, encodeRateLimitResponse } from './json-response-encoder.js';
import { closeLingering, type LingeringBounds, lingerOnClose } from './lingering-close.js';
import { TurnEndWriter } from './turn-end-writer.js';

/** Bodies above this are refused like unreadable ones; the reference reads without limit. */
export const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The HTTP/1.1 server: `/json` (any method) and `/healthcheck` (any method); anything else is
 * Go's `404 page not found`. Every failure of /json is 400 `Bad Request`, like the reference.
 */
export function createHttpServer(
  service: RateLimitService,
  health: HealthModel,
  log: Logger,
  limits: HttpClientLimits,
): Server {
  const writer = new TurnEndWriter((response, error) => badRequest(response, error, log));
  return boundedHttpServer(limits, (request, response) => {
    const path = pathOf(request.url);
    if (path === '/json') handleJson(service, writer, request, response, log, limits.lingering);
    else if (path === '/healthcheck') handleHealthcheck(health, response);
    else plainError(response, 404, '404 page not found');
  });
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * Reads the body with plain listeners (no promise per request), then answers. A body over the
 * limit, declared or sent, is answered at once (400, like every unreadable body) while the client
 * may still be sending: the connection then closes lingering (lingering-close.ts).
 */
function handleJson(
  service: RateLimitService,
  writer: TurnEndWriter,
  request: IncomingMessage,
  response: ServerResponse,
  log: Logger,
  lingering: LingeringBounds,
): void {
  const socket = request.socket;
  // Set once the body is known to be over the limit: what still comes is discarded.
  let refused = Number(request.headers['content-length']) > MAX_JSON_BODY_BYTES;
  if (refused) refuseLargeBody(socket, response, log, lingering);
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    if (refused) {
      closeLingering(socket, lingering);
      return;
    }
    size += chunk.length;
    if (size <= MAX_JSON_BODY_BYTES) {
      chunks.push(chunk);
      return;
    }
    refused = true;
    chunks.length = 0;
    refuseLargeBody(socket, response, log, lingering);
  });
  request.on('end', () => {
    if (refused) return;
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    answerJson(service, writer, body, response, log);
  });
  request.on('error', (error) => {
    log.debug(`/json: unreadable body: ${error.message}`);
    plainError(response, 400, 'Bad Request');
  });
}

/** Decides, then hands the answer to the writer. */
function answerJson(
  service: RateLimitService,
  writer: TurnEndWriter,
  body: Buffer,
  response: ServerResponse,
  log: Logger,
): void {
  let answer: Promise<RateLimitResponse>;
  try {
    answer = service.shouldRateLimit(decodeRateLimitRequest(body));
  } catch (error) {
    badRequest(response, error, log);
    return;
  }
  answer.then(
    (result) => sendAnswer(writer, response, result, log),
    (error: unknown) => badRequest(response, error, log),
  );
}

function sendAnswer(
  writer: TurnEndWriter,
  response: ServerResponse,
  result: RateLimitResponse,
  log: Logger,
): void {
  if (!isTracingActive()) {
    encodeAndSend(writer, response, result, log);
    return;
  }
  // The reference's span over encoding and writing; like the reference's, a root span.
  timedSpan('NewJsonHandler Remaining Execution', { response: JSON.stringify(result) }, () =>
    encodeAndSend(writer, response, result, log),
  );
}

function encodeAndSend(
  writer: TurnEndWriter,
  response: ServerResponse,
  result: RateLimitResponse,
  log: Logger,
): void {
  let json: EncodedJson;
  try {
    json = encodeRateLimitResponse(result);
  } catch (error) {
    badRequest(response, error, log);
    return;
  }
  writer.send(response, result.overallCode === 'OVER_LIMIT' ? 429 : 200, json);
}

function badRequest(response: ServerResponse, error: unknown, log: Logger): void {
  log.debug(`/json: ${(error as Error).message}`);
  plainError(response, 400, 'Bad Request');
}

/**
 * Answers 400 with `Connection: close` to a body over MAX_JSON_BODY_BYTES while the client may
 * still be sending it; Node's close of the socket after the answer then lingers.
 */
function refuseLargeBody(
  socket: Socket,
  response: ServerResponse,
  log: Logger,
  lingering: LingeringBounds,
): void {
  log.debug(`/json: unreadable body: body larger than ${MAX_JSON_BODY_BYTES} bytes`);
  lingerOnClose(socket, lingering);
  response.shouldKeepAlive = false;
  plainError(response, 400, 'Bad Request');
}

function handleHealthcheck(health: HealthModel, response: ServerResponse): void {
  if (health.isHealthy()) {
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 2 });
    response.end('OK');
  } else {
    response.writeHead(500, { 'content-length': 0 });
    response.end();
  }
}

/** Go's http.Error: the text plus a newline, as plain text, with nosniff. */
export function plainError(response: ServerResponse, statusCode: number, text: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = `${text}\n`;
  response.writeHead(statusCode, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
