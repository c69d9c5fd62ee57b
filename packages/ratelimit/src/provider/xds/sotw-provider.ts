import { type ClientDuplexStream, Metadata, status } from '@grpc/grpc-js';
import type { ApplyConfig, ConfigSource } from '../../config/source.js';
import type { ConfigProvider } from '../provider.js';
import { type BackoffSettings, backoffDelay } from './backoff.js';
import { decodeRateLimitConfig, toYamlDocument } from './convert.js';
import { type XdsTlsSettings, xdsChannelCredentials } from './credentials.js';
import type { DiscoveryRequest, DiscoveryResponse, NodeMessage } from './messages.js';
import { AggregatedDiscoveryService, rateLimitConfigTypeUrl } from './protos.js';
import type { XdsLogger } from './xds-logger.js';

/** CONFIG_GRPC_XDS_* and XDS_CLIENT_* settings. */
export interface XdsProviderSettings extends XdsTlsSettings {
  /** CONFIG_GRPC_XDS_SERVER_URL, `host:port`. */
  readonly serverUrl: string;
  readonly nodeId: string;
  /** CONFIG_GRPC_XDS_NODE_METADATA, parsed from `k=v,k2=v2`. */
  readonly nodeMetadata: Readonly<Record<string, string>>;
  /** CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS, sent as gRPC metadata on the stream. */
  readonly additionalHeaders: Readonly<Record<string, string>>;
  /** CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: retry delay until the first response arrives. */
  readonly connectRetryIntervalMs: number;
  readonly backoff: BackoffSettings;
  /** XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES; 0 keeps gRPC's default (4 MiB). */
  readonly maxMessageSizeBytes: number;
}

type AdsStream = ClientDuplexStream<DiscoveryRequest, DiscoveryResponse>;
type AdsClient = InstanceType<typeof AggregatedDiscoveryService> & {
  StreamAggregatedResources(metadata: Metadata): AdsStream;
};

// The reference's go-control-plane ADS client NACKs with only a message (google.rpc.Code 0, OK):
// management servers built on go-control-plane read the text, and some treat other codes apart.
const nackCode = 0;

/**
 * CONFIG_TYPE=GRPC_XDS_SOTW: subscribes to RateLimitConfig resources on an ADS stream. Every response
 * is the whole world: all resources replace the whole config through ApplyConfig, then the response is
 * ACKed; a config that does not apply (or does not decode) is NACKed with the error text and the
 * previous config stays. A broken stream is re-opened after the XDS_CLIENT_BACKOFF_* delay.
 */
export class XdsSotwProvider implements ConfigProvider {
  readonly #settings: XdsProviderSettings;
  readonly #logger: XdsLogger | undefined;
  readonly #waitForFirstConfig: boolean;
  #client: AdsClient | undefined;
  #stream: AdsStream | undefined;
  #apply: ApplyConfig | undefined;
  #acceptedVersion = '';
  #everReceived = false;
  #attempt = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #stopped = false;
  #firstApplied: (() => void) | undefined;

  constructor(
    settings: XdsProviderSettings,
    options: { logger?: XdsLogger; waitForFirstConfig?: boolean } = {},
  ) {
    this.#settings = settings;
    this.#logger = options.logger;
    this.#waitForFirstConfig = options.waitForFirstConfig ?? true;
  }

  /** Version of the last config that applied and was ACKed ('' before the first). */
  get acceptedVersion(): string {
    return this.#acceptedVersion;
  }

  /**
   * Resolves once the first config has applied, unless `waitForFirstConfig` is false. Unreadable TLS
   * files or an unusable server address reject.
   */
  async start(apply: ApplyConfig): Promise<void> {
    this.#apply = apply;
    const { credentials, options } = xdsChannelCredentials(this.#settings);
    const channelOptions: Record<string, string | number> = { ...options };
    if (this.#settings.maxMessageSizeBytes > 0) {
      channelOptions['grpc.max_receive_message_length'] = this.#settings.maxMessageSizeBytes;
    }
    this.#client = new AggregatedDiscoveryService(
      this.#settings.serverUrl,
      credentials,
      channelOptions,
    ) as AdsClient;
    const first = new Promise<void>((resolve) => {
      this.#firstApplied = resolve;
    });
    this.#openStream();
    if (this.#waitForFirstConfig) await first;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#stream?.cancel();
    this.#client?.close();
    this.#firstApplied?.();
  }

  #node(): NodeMessage {
    const fields = Object.fromEntries(
      Object.entries(this.#settings.nodeMetadata).map(([key, value]) => [key, { stringValue: value }]),
    );
    return { id: this.#settings.nodeId, metadata: { fields }, user_agent_name: 'ratelimit' };
  }

  #request(nonce: string, errorMessage?: string): DiscoveryRequest {
    return {
      version_info: this.#acceptedVersion,
      node: this.#node(),
      resource_names: [],
      type_url: rateLimitConfigTypeUrl,
      response_nonce: nonce,
      error_detail: errorMessage === undefined ? null : { code: nackCode, message: errorMessage },
    };
  }

  #openStream(): void {
    if (this.#stopped || !this.#client) return;
    const metadata = new Metadata();
    for (const [key, value] of Object.entries(this.#settings.additionalHeaders)) metadata.set(key, value);
    const stream = this.#client.StreamAggregatedResources(metadata);
    this.#stream = stream;
    let ended = false;
    const onEnd = (reason: string) => {
      if (ended) return;
      ended = true;
      this.#scheduleReconnect(reason);
    };
    stream.on('data', (response: DiscoveryResponse) => this.#onResponse(stream, response));
    stream.on('error', (error: Error & { code?: number }) => {
      if (error.code !== status.CANCELLED || !this.#stopped) onEnd(error.message);
    });
    stream.on('end', () => onEnd('the management server closed the stream'));
    stream.write(this.#request(''));
  }

  #scheduleReconnect(reason: string): void {
    if (this.#stopped) return;
    const delay = this.#everReceived
      ? backoffDelay(this.#settings.backoff, this.#attempt++)
      : this.#settings.connectRetryIntervalMs;
    this.#logger?.warn(
      `xDS stream to ${this.#settings.serverUrl} ended: ${reason}; reconnecting in ${Math.round(delay)} ms`,
    );
    this.#retryTimer = setTimeout(() => this.#openStream(), delay);
  }

  #onResponse(stream: AdsStream, response: DiscoveryResponse): void {
    this.#everReceived = true;
    this.#attempt = 0;
    if (response.type_url !== rateLimitConfigTypeUrl) {
      this.#logger?.warn(`xDS response for unexpected type ${response.type_url} ignored`);
      return;
    }
    let sources: ConfigSource[];
    try {
      sources = response.resources.map((resource) => {
        if (resource.type_url !== rateLimitConfigTypeUrl)
          throw new Error(`unexpected resource type ${resource.type_url}`);
        const config = decodeRateLimitConfig(resource.value);
        return { kind: 'object', name: config.name ?? '', value: toYamlDocument(config) } as const;
      });
    } catch (error) {
      this.#nack(stream, response, `cannot decode RateLimitConfig resources: ${(error as Error).message}`);
      return;
    }
    try {
      this.#apply?.(sources);
    } catch (error) {
      this.#nack(stream, response, (error as Error).message);
      return;
    }
    this.#acceptedVersion = response.version_info;
    stream.write(this.#request(response.nonce));
    this.#logger?.info(`xDS config version ${response.version_info} applied`, { resources: sources.length });
    this.#firstApplied?.();
    this.#firstApplied = undefined;
  }

  #nack(stream: AdsStream, response: DiscoveryResponse, message: string): void {
    this.#logger?.warn(`xDS config version ${response.version_info} rejected: ${message}`);
    stream.write(this.#request(response.nonce, message));
  }
}
