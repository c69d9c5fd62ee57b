import { FlagError } from './flags.js';

/** `ratelimit --help`: the server takes its settings from the environment, as the reference does. */
export const SERVER_USAGE = `Usage: ratelimit [-h|--help]

The rate limit service (gRPC envoy.service.ratelimit.v3, HTTP /json and /healthcheck, debug port).
It takes no arguments: every setting comes from the environment, with the reference's names.

Most used settings (default):
  HOST, PORT               HTTP listener (0.0.0.0, 8080)
  GRPC_HOST, GRPC_PORT     gRPC listener (0.0.0.0, 8081)
  DEBUG_HOST, DEBUG_PORT   debug listener: /rlconfig, /stats (0.0.0.0, 6070)
  BACKEND_TYPE             redis, memcache or memory (redis)
  REDIS_URL                Redis host:port (127.0.0.1:6379)
  MEMCACHE_HOST_PORT       Memcached addresses, comma-separated
  RUNTIME_ROOT             config root (/srv/runtime_data/current); configs are read from
  RUNTIME_SUBDIRECTORY     RUNTIME_ROOT/RUNTIME_SUBDIRECTORY/RUNTIME_APPDIRECTORY (config)
  USE_STATSD               send stats to STATSD_HOST:STATSD_PORT (true)
  LOG_LEVEL, LOG_FORMAT    WARN, text on a terminal and json otherwise (LOG_LEVEL=debug adds
                           the stack to a startup error)
  RATELIMIT_WORKERS        server processes sharing the ports (1)

Every setting is in the configuration table of packages/ratelimit/README.md.
Try it with the in-memory quickstart: npm start -w packages/ratelimit
`;

/** What the command line asks for: usage, or the server (whose settings are in the environment). */
export function parseServerArgs(argv: readonly string[]): 'help' | 'serve' {
  if (argv.some((arg) => arg === '-h' || arg === '--help' || arg === '-help')) return 'help';
  const [first] = argv;
  if (first === undefined) return 'serve';
  throw new FlagError(
    first.startsWith('-')
      ? `unknown flag ${first}: settings come from the environment (e.g. PORT=8080)`
      : `unexpected argument '${first}': settings come from the environment (e.g. PORT=8080)`,
  );
}
