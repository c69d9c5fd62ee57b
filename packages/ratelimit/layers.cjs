// The rate limit service's layers, top to bottom: a module may import from its own layer and the layers below
// it, never from a layer above (the root .dependency-cruiser.cjs turns this list into rules). README: Architecture.
const src = '^packages/ratelimit/src/';

module.exports = {
  layers: [
    // wiring: settings from the environment, startServer, the cluster, the commands, the library's entry
    { name: 'wiring', path: `${src}((main|lib|cluster|settings)[.]ts$|cli/)` },
    // the one gRPC client of the service (the CLI, the library's RemoteRateLimiter, tests)
    { name: 'client', path: `${src}client/` },
    // gRPC, HTTP (/json, /healthcheck) and debug servers: decoding, encoding, client bounds
    { name: 'server', path: `${src}server/` },
    // config sources: the file watcher and the xDS client
    { name: 'provider', path: `${src}provider/` },
    // ShouldRateLimit: validation, matching, the decision and its response
    { name: 'service', path: `${src}service/` },
    // RLQS arithmetic, pure: a rule as a bucket's strategy, the fair share of a quota among clients
    { name: 'quota', path: `${src}quota/` },
    // the limiter: cache keys, windows, the local over-limit cache, the one store call per request
    { name: 'limiter', path: `${src}limiter/` },
    // config: the YAML reader, the rule tree, matching, a request's limit override
    { name: 'config', path: `${src}config/` },
    // stats: the stat store and its sinks
    { name: 'stats', path: `${src}stats/` },
    // logs and traces
    { name: 'observability', path: `${src}(observability/|log[.]ts$)` },
    // the counter stores (memory, Redis, Memcached) and the algorithms' arithmetic
    { name: 'backends', path: `${src}backends/` },
    // the shared vocabulary: messages, units, algorithms, the protos; and the leaves every layer uses
    { name: 'protocol', path: `${src}(protocol/|(errors|env-reader|flat-string)[.]ts$)` },
  ],
};
