// Serves the YAML files of a directory as RateLimitConfig resources over ADS, re-reading it every
// second. Usage: tsx examples/xds/management-server.ts [directory] [host:port]
import { fileURLToPath } from 'node:url';
import { XdsManagementServer } from '../../src/provider/xds/management-server.js';

const directory = process.argv[2] ?? fileURLToPath(new URL('./config/', import.meta.url));
const address = process.argv[3] ?? '127.0.0.1:18000';
const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
  process.stderr.write(`${level} ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`);
const server = new XdsManagementServer({
  directory,
  address,
  pollIntervalMs: 1000,
  logger: { info: log('info'), warn: log('warn') },
});
server.on('request', ({ request }) => {
  const verdict = request.error_detail
    ? `NACK: ${request.error_detail.message}`
    : request.response_nonce
      ? 'ACK'
      : 'subscribe';
  log('info')(`node ${request.node?.id ?? '?'} ${verdict} (version ${request.version_info || 'none'})`);
});
const port = await server.start();
log('info')(`serving ${directory} on port ${port}; edit the files to push a new version`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void server.stop());
