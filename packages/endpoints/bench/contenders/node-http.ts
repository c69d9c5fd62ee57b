import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { HELLO, JSON_TYPE, searchAnswer, userAnswer } from './answers.js';

/**
 * The baseline: raw node:http with the least routing that answers the four routes, written like
 * fastify/benchmarks' node-http (setHeader, then end with the body, so Node sends Content-Length).
 */
function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const answer = (status: number, value: unknown) => {
    res.statusCode = status;
    res.setHeader('content-type', JSON_TYPE);
    res.end(JSON.stringify(value));
  };
  if (url === '/') {
    answer(200, HELLO);
    return;
  }
  if (url.startsWith('/search?')) {
    const query = new URLSearchParams(url.slice(8));
    const found = searchAnswer(
      query.get('q') ?? undefined,
      query.get('page') ?? undefined,
      query.get('size') ?? undefined,
    );
    answer(found ? 200 : 400, found ?? 'bad query');
    return;
  }
  if (url === '/users' && req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let found: ReturnType<typeof userAnswer>;
      try {
        found = userAnswer(JSON.parse(Buffer.concat(chunks).toString()));
      } catch {
        found = undefined;
      }
      answer(found ? 200 : 400, found ?? 'bad body');
    });
    return;
  }
  const parts = url.split('/');
  if (parts.length === 5 && parts[1] === 'users' && parts[3] === 'posts') {
    answer(200, { userId: parts[2], postId: parts[4] });
    return;
  }
  res.statusCode = 404;
  res.end();
}

export async function listener(): Promise<RequestListener> {
  return handle;
}
