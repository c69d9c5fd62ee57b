// `npm start -w packages/ratelimit`: the service with the in-process memory store and the
// example config in examples/runtime/ratelimit/config, on the default ports of 127.0.0.1 (the
// service itself defaults to 0.0.0.0, like the reference). Any setting given in the environment
// wins over these quickstart defaults.
import { fileURLToPath } from 'node:url';

const defaults: Record<string, string> = {
  BACKEND_TYPE: 'memory',
  RUNTIME_ROOT: fileURLToPath(new URL('./runtime', import.meta.url)),
  RUNTIME_SUBDIRECTORY: 'ratelimit',
  RUNTIME_WATCH_ROOT: 'false',
  USE_STATSD: 'false',
  DISABLE_STATS: 'true',
  LOG_LEVEL: 'info',
  HOST: '127.0.0.1',
  GRPC_HOST: '127.0.0.1',
  DEBUG_HOST: '127.0.0.1',
};
for (const [name, value] of Object.entries(defaults)) process.env[name] ??= value;

const port = process.env.PORT ?? '8080';
const grpcPort = process.env.GRPC_PORT ?? '8081';
const debugPort = process.env.DEBUG_PORT ?? '6070';
process.stdout.write(
  [
    `ratelimit quickstart: memory store, config from ${process.env.RUNTIME_ROOT}/ratelimit/config`,
    'Try it:',
    `  curl -s -XPOST 127.0.0.1:${port}/json -d '{"domain":"basic","descriptors":[{"entries":[{"key":"one_per_minute","value":"me"}]}]}'`,
    `  curl -s 127.0.0.1:${port}/healthcheck`,
    `  curl -s 127.0.0.1:${debugPort}/rlconfig`,
    `  curl -s 127.0.0.1:${debugPort}/stats`,
    `  npx ratelimit-client -dial_string 127.0.0.1:${grpcPort} -domain rl -descriptors foo=pelle,baz=not-so-shady`,
    '',
  ].join('\n'),
);

await import('../bin/ratelimit.js');
