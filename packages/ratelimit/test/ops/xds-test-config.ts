import type { XdsProviderSettings } from '../../src/provider/xds/sotw-provider.js';

/** A one-rule rate limit config file: `key: k` (any value) limited to `requests` per `unit`. */
export function limitYaml(domain: string, requests: number, unit: string): string {
  return `domain: ${domain}\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: ${unit}\n      requests_per_unit: ${requests}\n`;
}

/** xDS client settings for a plaintext management server on loopback, with fast retries. */
export function xdsTestSettings(
  port: number,
  overrides: Partial<XdsProviderSettings> = {},
): XdsProviderSettings {
  return {
    serverUrl: `127.0.0.1:${port}`,
    nodeId: 'test-node',
    nodeMetadata: {},
    additionalHeaders: {},
    connectRetryIntervalMs: 50,
    backoff: { initialIntervalMs: 50, maxIntervalMs: 200, randomFactor: 0.5, jitter: true },
    maxMessageSizeBytes: 0,
    useTls: false,
    clientTlsCert: '',
    clientTlsKey: '',
    serverTlsCaCert: '',
    serverTlsSan: '',
    ...overrides,
  };
}
