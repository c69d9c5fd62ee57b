import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type GrpcObject,
  loadPackageDefinition,
  type ServiceClientConstructor,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import protobuf from 'protobufjs';

/** The xDS resource type this service consumes. */
export const rateLimitConfigTypeUrl = 'type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig';

// proto/ sits at the package root: two levels above src/provider/xds when run from source with
// tsx, three when run from dist/src/provider/xds.
function protoRoot(): string {
  for (const relative of ['../../../proto/', '../../../../proto/']) {
    const candidate = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(`${candidate}envoy/service/discovery/v3/discovery.proto`)) return candidate;
  }
  throw new Error('cannot find the proto/ directory of @platform/ratelimit next to its sources');
}

const root = protoRoot();

function loadAds() {
  const definition = loadSync('envoy/service/discovery/v3/discovery.proto', {
    includeDirs: [root],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const grpcObject = loadPackageDefinition(definition);
  const discovery = (((grpcObject.envoy as GrpcObject).service as GrpcObject).discovery as GrpcObject)
    .v3 as GrpcObject;
  return discovery.AggregatedDiscoveryService as ServiceClientConstructor;
}

/** grpc-js client constructor and service definition for the ADS stream. */
export const AggregatedDiscoveryService = loadAds();
export const adsServiceDefinition: ServiceDefinition = AggregatedDiscoveryService.service;

function loadRateLimitConfigType(): protobuf.Type {
  const protobufRoot = new protobuf.Root();
  protobufRoot.resolvePath = (_origin, target) => `${root}${target}`;
  protobufRoot.loadSync('ratelimit/config/ratelimit/v3/rls_conf.proto', { keepCase: true });
  return protobufRoot.lookupType('ratelimit.config.ratelimit.v3.RateLimitConfig');
}

/** protobufjs codec for the `Any.value` bytes of a RateLimitConfig resource. */
export const RateLimitConfigType = loadRateLimitConfigType();
