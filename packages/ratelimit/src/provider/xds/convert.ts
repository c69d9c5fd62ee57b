import { UINT32_MAX } from '../../protocol/messages.js';
import { unitNumber } from '../../protocol/units.js';
import { RateLimitConfigType } from './protos.js';

/** RateLimitConfig as protobufjs decodes it (keepCase, enums as names). */
interface ProtoPolicy {
  unit?: string;
  requests_per_unit?: number;
  unlimited?: boolean;
  name?: string;
  replaces?: Array<{ name?: string }>;
  algorithm?: string;
  burst?: number;
  unit_multiplier?: number;
}

interface ProtoDescriptor {
  key?: string;
  value?: string;
  rate_limit?: ProtoPolicy;
  rate_limits?: ProtoPolicy[];
  descriptors?: ProtoDescriptor[];
  shadow_mode?: boolean;
  detailed_metric?: boolean;
}

export interface ProtoRateLimitConfig {
  name?: string;
  domain?: string;
  descriptors?: ProtoDescriptor[];
}

/** One rate limit block of the YAML document shape. */
export interface YamlRateLimit {
  unit: string;
  requests_per_unit: number;
  unlimited?: boolean;
  name?: string;
  replaces?: Array<{ name: string }>;
  algorithm?: string;
  burst?: number;
  unit_multiplier?: number;
}

/** The YAML document shape the config loader validates (snake_case keys like the YAML files). */
export interface YamlDescriptor {
  key: string;
  value?: string;
  rate_limit?: YamlRateLimit;
  rate_limits?: YamlRateLimit[];
  shadow_mode?: boolean;
  detailed_metric?: boolean;
  descriptors?: YamlDescriptor[];
}

export interface YamlDocument {
  domain: string;
  descriptors?: YamlDescriptor[];
}

function toYamlDescriptor(descriptor: ProtoDescriptor): YamlDescriptor {
  const result: YamlDescriptor = { key: descriptor.key ?? '' };
  if (descriptor.value) result.value = descriptor.value;
  if (descriptor.rate_limit) result.rate_limit = toYamlRateLimit(descriptor.rate_limit);
  if (descriptor.rate_limits?.length) result.rate_limits = descriptor.rate_limits.map(toYamlRateLimit);
  if (descriptor.shadow_mode) result.shadow_mode = true;
  if (descriptor.detailed_metric) result.detailed_metric = true;
  if (descriptor.descriptors?.length) result.descriptors = descriptor.descriptors.map(toYamlDescriptor);
  return result;
}

function toYamlRateLimit(policy: ProtoPolicy): YamlRateLimit {
  // The unit goes through the same validation as YAML: UNKNOWN is only accepted with unlimited.
  const limit: YamlRateLimit = {
    unit: policy.unit ?? 'UNKNOWN',
    requests_per_unit: policy.requests_per_unit ?? 0,
  };
  if (policy.unlimited) limit.unlimited = true;
  if (policy.name) limit.name = policy.name;
  if (policy.replaces?.length) limit.replaces = policy.replaces.map((r) => ({ name: r.name ?? '' }));
  // The new fields' zero values are their defaults, so they are written only when set.
  if (policy.algorithm && policy.algorithm !== 'FIXED_WINDOW')
    limit.algorithm = policy.algorithm.toLowerCase();
  if (policy.burst) limit.burst = policy.burst;
  if (policy.unit_multiplier) limit.unit_multiplier = policy.unit_multiplier;
  return limit;
}

/** Decodes a RateLimitConfig resource; throws when the bytes are not a valid message. */
export function decodeRateLimitConfig(bytes: Uint8Array): ProtoRateLimitConfig {
  const message = RateLimitConfigType.decode(bytes);
  return RateLimitConfigType.toObject(message, {
    enums: String,
    longs: Number,
    arrays: true,
  }) as ProtoRateLimitConfig;
}

/** The reference's config_xds.go conversion: a RateLimitConfig becomes one YAML-shaped document. */
export function toYamlDocument(config: ProtoRateLimitConfig): YamlDocument {
  const document: YamlDocument = { domain: config.domain ?? '' };
  if (config.descriptors?.length) document.descriptors = config.descriptors.map(toYamlDescriptor);
  return document;
}

// YAML files write units in lower case; the proto enum wants the upper-case names.
function withProtoUnits(
  name: string,
  descriptors: YamlDescriptor[] | undefined,
): YamlDescriptor[] | undefined {
  return descriptors?.map((descriptor) => {
    const children = withProtoUnits(name, descriptor.descriptors);
    const policy = descriptor.rate_limit;
    const list = descriptor.rate_limits;
    return {
      ...descriptor,
      ...(policy && { rate_limit: protoPolicy(name, policy) }),
      ...(list && { rate_limits: list.map((entry) => protoPolicy(name, entry)) }),
      ...(children && { descriptors: children }),
    };
  });
}

const ALGORITHMS = new Set(['FIXED_WINDOW', 'SLIDING_WINDOW', 'TOKEN_BUCKET']);

/**
 * A YAML block in the proto's terms. protobufjs would turn an unknown enum name into 0 and a
 * fraction into its whole part without a word, so both are refused here.
 */
function protoPolicy(name: string, policy: YamlRateLimit): YamlRateLimit {
  const unit = String(policy.unit ?? 'UNKNOWN').toUpperCase();
  if (unitNumber(unit) === undefined) throw new Error(`${name}: invalid rate limit unit '${policy.unit}'`);
  const algorithm = policy.algorithm === undefined ? undefined : String(policy.algorithm).toUpperCase();
  if (algorithm !== undefined && !ALGORITHMS.has(algorithm)) {
    throw new Error(`${name}: unknown algorithm '${policy.algorithm}'`);
  }
  for (const field of ['burst', 'unit_multiplier'] as const) {
    const value = policy[field];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1 && value <= UINT32_MAX)) {
      throw new Error(`${name}: ${field} must be a whole number of at least 1, got '${value}'`);
    }
  }
  return { ...policy, unit, ...(algorithm !== undefined && { algorithm }) };
}

/** The reverse, for the management server: a YAML-shaped document becomes RateLimitConfig bytes. */
export function encodeRateLimitConfig(name: string, document: YamlDocument): Uint8Array {
  const object = {
    name,
    domain: document.domain,
    descriptors: withProtoUnits(name, document.descriptors) ?? [],
  };
  try {
    return RateLimitConfigType.encode(RateLimitConfigType.fromObject(object)).finish();
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}
