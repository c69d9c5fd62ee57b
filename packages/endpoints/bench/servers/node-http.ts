import { createServer } from 'node:http';
import { announce, HELLO, JSON_TYPE } from './ready.js';

/**
 * The baseline: raw node:http with the least routing that answers both routes, written like
 * fastify/benchmarks' node-http (setHeader, then end with the body, so Node sends Content-Length).
 */
const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (url === '/') {
    res.setHeader('content-type', JSON_TYPE);
    res.end(JSON.stringify(HELLO));
    return;
  }
  const parts = url.split('/');
  if (parts.length === 5 && parts[1] === 'users' && parts[3] === 'posts') {
    res.setHeader('content-type', JSON_TYPE);
    res.end(JSON.stringify({ userId: parts[2], postId: parts[4] }));
    return;
  }
  res.statusCode = 404;
  res.end();
});
server.listen(0, '127.0.0.1', () => announce(server.address()));
