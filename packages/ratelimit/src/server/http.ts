import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { RateLimitService } from '../service/ratelimit-service.js';
import type { HealthModel } from './health.js';
import { decodeRateLimitRequest, encodeRateLimitResponse } from './json-codec.js';

/** Bodies above this are refused like unreadable ones; the reference reads without limit. */
export const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The HTTP/1.1 server: `/json` (any method) and `/healthcheck` (any method); anything else is
 * Go's `404 page not found`. Every failure of /json is 400 `Bad Request`, like the reference.
 */
export function createHttpServer(service: RateLimitService, health: HealthModel, log: Logger): Server {
  const server = createServer((request, response) => {
    const path = pathOf(request.url);
    if (path === '/json') void handleJson(service, request, response, log);
    else if (path === '/healthcheck') handleHealthcheck(health, response);
    else plainError(response, 404, '404 page not found');
  });
  // Garbage on the socket gets a 400 and a closed connection; the server keeps serving.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  return server;
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

async function handleJson(
  service: RateLimitService,
  request: IncomingMessage,
  response: ServerResponse,
  log: Logger,
): Promise<void> {
  let body: string;
  try {
    body = await readBody(request);
  } catch (error) {
    log.debug(`/json: unreadable body: ${(error as Error).message}`);
    plainError(response, 400, 'Bad Request');
    return;
  }
  try {
    const decoded = decodeRateLimitRequest(body);
    const result = await service.shouldRateLimit(decoded);
    const json = encodeRateLimitResponse(result);
    response.writeHead(result.overallCode === 'OVER_LIMIT' ? 429 : 200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
    });
    response.end(json);
  } catch (error) {
    log.debug(`/json: ${(error as Error).message}`);
    plainError(response, 400, 'Bad Request');
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_JSON_BODY_BYTES) {
        reject(new Error(`body larger than ${MAX_JSON_BODY_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
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
