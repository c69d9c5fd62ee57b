import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type GrpcObject, loadPackageDefinition, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync, type Options } from '@grpc/proto-loader';

/** The package's proto/ directory, from src/ in development and from dist/src/ once built. */
export function protoRoot(): string {
  for (const relative of ['../../proto', '../../../proto']) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('proto/ directory not found next to the ratelimit package sources');
}

/**
 * Decoding options shared by the server and the client: camelCase fields (the same shape as
 * proto3 JSON), enums as names, 64-bit integers as numbers, defaults filled in.
 */
const LOADER_OPTIONS: Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: false,
};

export interface LoadedProtos {
  readonly rateLimitService: ServiceClientConstructor;
  readonly health: ServiceClientConstructor;
}

let loaded: LoadedProtos | undefined;

export function loadProtos(): LoadedProtos {
  if (loaded) return loaded;
  const definition = loadSync(['envoy/service/ratelimit/v3/rls.proto', 'grpc/health/v1/health.proto'], {
    ...LOADER_OPTIONS,
    includeDirs: [protoRoot()],
  });
  const root = loadPackageDefinition(definition);
  const rls = lookup(root, 'envoy.service.ratelimit.v3.RateLimitService');
  const health = lookup(root, 'grpc.health.v1.Health');
  loaded = { rateLimitService: rls, health };
  return loaded;
}

function lookup(root: GrpcObject, path: string): ServiceClientConstructor {
  let node: unknown = root;
  for (const part of path.split('.')) node = (node as Record<string, unknown>)[part];
  return node as ServiceClientConstructor;
}
