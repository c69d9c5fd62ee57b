// Baseline: a raw node:http server answering every request with a fixed JSON body.
// Usage: node dist/bench/servers/http-raw.js <port>
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
const body = Buffer.from('{"overallCode":"OK"}');
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  response.end(body);
});
server.listen(port, '127.0.0.1');
server.on('error', (error) => {
  process.stderr.write(`http-raw: ${error.message}\n`);
  process.exit(1);
});
process.once('SIGTERM', () => server.close());
