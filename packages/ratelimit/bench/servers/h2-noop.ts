// Ceiling: a raw node:http2 server that reads a gRPC unary call to the end and answers it with a
// fixed RateLimitResponse{overall_code: OK} frame and grpc-status 0, decoding nothing: what HTTP/2
// itself costs in Node. Usage: node dist/bench/servers/h2-noop.js <port>
import { createServer } from 'node:http2';

const port = Number(process.argv[2]);
// The 5-byte gRPC message prefix (uncompressed, length 2), then field 1 (overall_code) = 1 (OK).
const answer = Buffer.from([0, 0, 0, 0, 2, 0x08, 0x01]);
const server = createServer();
server.on('stream', (stream) => {
  stream.on('data', () => {});
  stream.on('end', () => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(answer);
  });
  stream.on('error', () => {});
});
server.listen(port, '127.0.0.1');
server.on('error', (error) => {
  process.stderr.write(`h2-noop: ${error.message}\n`);
  process.exit(1);
});
process.once('SIGTERM', () => server.close());
