// The rate limit server (settings from the environment, as bin/ratelimit) plus the prototype
// gRPC transport on node:http2 on one more port, serving the same service and stats.
// Usage: node dist/bench/servers/ratelimit-h2.js <h2 port>
import { createServer } from 'node:http2';
import { startServer } from '../../src/main.js';
import { readSettings } from '../../src/settings.js';
import { grpcStreamHandler } from './grpc-h2-transport.js';

const port = Number(process.argv[2]);
const settings = readSettings();
const running = await startServer(settings);
const server = createServer();
server.on(
  'stream',
  grpcStreamHandler(running.service, running.stats, {
    // The grpc-js server's limit: grpc-go's default, 4 MiB.
    maxReceiveMessageBytes: 4 * 1024 * 1024,
    maxDescriptors: settings.service.maxDescriptors,
  }),
);
server.listen(port, '127.0.0.1');
server.on('error', (error) => {
  process.stderr.write(`ratelimit-h2: ${error.message}\n`);
  process.exit(1);
});
// As bin/ratelimit: exit once stopped (idle HTTP/2 sessions would otherwise keep the process up).
process.once('SIGTERM', () => {
  server.close();
  void running.close().then(() => process.exit(0));
});
