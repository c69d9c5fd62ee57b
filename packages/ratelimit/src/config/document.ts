/** The typed form of one config source, before the descriptor trees are built. */

/** One descriptor of a config document, after the key and type checks. */
export interface DescriptorConfig {
  readonly key: string;
  readonly value: string;
  readonly rateLimit: RateLimitBlock | undefined;
  /** `rate_limits`: several limits on one descriptor; undefined when the key is absent. */
  readonly rateLimits?: readonly RateLimitBlock[];
  readonly descriptors: readonly DescriptorConfig[];
  readonly shadowMode: boolean;
  readonly detailedMetric: boolean;
  readonly valueToMetric: boolean;
  readonly shareThreshold: boolean;
}

export interface RateLimitBlock {
  readonly unit: string;
  readonly requestsPerUnit: number;
  readonly unlimited: boolean;
  readonly name: string;
  readonly replaces: readonly string[];
  /** The new optional fields, as written (validated when the tree is built); undefined when absent. */
  readonly algorithm?: string;
  readonly burst?: string;
  readonly unitMultiplier?: string;
}

export interface ConfigDocument {
  readonly name: string;
  readonly domain: string;
  readonly descriptors: readonly DescriptorConfig[];
}
