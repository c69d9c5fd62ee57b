// Baseline: a grpc-js server with the same protos and loader options as the rate limit service,
// whose ShouldRateLimit answers OK at once. Usage: node dist/bench/servers/grpc-noop.js <port>
import { Server, ServerCredentials, type sendUnaryData } from '@grpc/grpc-js';
import { loadProtos } from '../../src/protocol/proto.js';

const port = Number(process.argv[2]);
const server = new Server();
server.addService(loadProtos().rateLimitService.service, {
  ShouldRateLimit(_call: unknown, callback: sendUnaryData<unknown>): void {
    callback(null, { overallCode: 'OK' });
  },
});
server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error) => {
  if (error) {
    process.stderr.write(`grpc-noop: cannot bind 127.0.0.1:${port}: ${error.message}\n`);
    process.exit(1);
  }
});
process.once('SIGTERM', () => server.forceShutdown());
