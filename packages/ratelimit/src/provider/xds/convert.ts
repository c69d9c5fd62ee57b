import { unitNumber } from '../../limiter/units.js';
import { RateLimitConfigType } from './protos.js';

/** RateLimitConfig as protobufjs decodes it (keepCase, enums as names). */
interface ProtoPolicy {
  unit?: string;
  requests_per_unit?: number;
  unlimited?: boolean;
  name?: string;
  replaces?: Array<{ name?: string }>;
}

interface ProtoDescriptor {
  key?: string;
  value?: string;
  rate_limit?: ProtoPolicy;
  descriptors?: ProtoDescriptor[];
  shadow_mode?: boolean;
  detailed_metric?: boolean;
}

export interface ProtoRateLimitConfig {
  name?: string;
  domain?: string;
  descriptors?: ProtoDescriptor[];
}

/** The YAML document shape the config loader validates (snake_case keys like the YAML files). */
export interface YamlDescriptor {
  key: string;
  value?: string;
  rate_limit?: {
    unit: string;
    requests_per_unit: number;
    unlimited?: boolean;
    name?: string;
    replaces?: Array<{ name: string }>;
  };
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
  const policy = descriptor.rate_limit;
  if (policy) {
    // The unit goes through the same validation as YAML: UNKNOWN is only accepted with unlimited.
    result.rate_limit = { unit: policy.unit ?? 'UNKNOWN', requests_per_unit: policy.requests_per_unit ?? 0 };
    if (policy.unlimited) result.rate_limit.unlimited = true;
    if (policy.name) result.rate_limit.name = policy.name;
    if (policy.replaces?.length)
      result.rate_limit.replaces = policy.replaces.map((r) => ({ name: r.name ?? '' }));
  }
  if (descriptor.shadow_mode) result.shadow_mode = true;
  if (descriptor.detailed_metric) result.detailed_metric = true;
  if (descriptor.descriptors?.length) result.descriptors = descriptor.descriptors.map(toYamlDescriptor);
  return result;
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
    if (!policy) return { ...descriptor, ...(children && { descriptors: children }) };
    const unit = String(policy.unit ?? 'UNKNOWN').toUpperCase();
    if (unitNumber(unit) === undefined) throw new Error(`${name}: invalid rate limit unit '${policy.unit}'`);
    return { ...descriptor, rate_limit: { ...policy, unit }, ...(children && { descriptors: children }) };
  });
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
