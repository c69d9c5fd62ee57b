import { createServer } from 'node:http';
import { announce, HELLO, JSON_TYPE } from './ready.js';

/** The baseline: raw node:http with the least routing that answers both routes. */
const server = createServer((req, res) => {
  const url = req.url ?? '/';
  if (url === '/') {
    res.writeHead(200, { 'content-type': JSON_TYPE });
    res.end(JSON.stringify(HELLO));
    return;
  }
  const parts = url.split('/');
  if (parts.length === 5 && parts[1] === 'users' && parts[3] === 'posts') {
    res.writeHead(200, { 'content-type': JSON_TYPE });
    res.end(JSON.stringify({ userId: parts[2], postId: parts[4] }));
    return;
  }
  res.writeHead(404);
  res.end();
});
server.listen(0, '127.0.0.1', () => announce(server.address()));
