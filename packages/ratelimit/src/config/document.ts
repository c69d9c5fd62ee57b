/** The typed form of one config source, before the descriptor trees are built. */

/** One descriptor of a config document, after the key and type checks. */
export interface DescriptorConfig {
  readonly key: string;
  readonly value: string;
  readonly rateLimit: RateLimitBlock | undefined;
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
}

export interface ConfigDocument {
  readonly name: string;
  readonly domain: string;
  readonly descriptors: readonly DescriptorConfig[];
}
