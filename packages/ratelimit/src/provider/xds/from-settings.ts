import type { Settings } from '../../settings.js';
import type { XdsProviderSettings } from './sotw-provider.js';

/** Maps the parsed CONFIG_GRPC_XDS_* / XDS_CLIENT_* settings onto the provider's. */
export function xdsProviderSettings(xds: Settings['xds']): XdsProviderSettings {
  return {
    serverUrl: xds.serverUrl,
    nodeId: xds.nodeId,
    nodeMetadata: Object.fromEntries(xds.nodeMetadata),
    additionalHeaders: Object.fromEntries(xds.additionalHeaders),
    connectRetryIntervalMs: xds.connectRetryIntervalMs,
    backoff: {
      initialIntervalMs: xds.backoffInitialIntervalMs,
      maxIntervalMs: xds.backoffMaxIntervalMs,
      randomFactor: xds.backoffRandomFactor,
      jitter: xds.backoffJitter,
    },
    maxMessageSizeBytes: xds.maxMessageSizeBytes,
    useTls: xds.useTls,
    clientTlsCert: xds.clientTlsCert,
    clientTlsKey: xds.clientTlsKey,
    serverTlsCaCert: xds.serverTlsCaCert,
    serverTlsSan: xds.serverTlsSan,
  };
}
