import { EventEmitter } from 'node:events';
import { readdir, readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { Server, ServerCredentials, type ServerDuplexStream } from '@grpc/grpc-js';
import { parse } from 'yaml';
import { encodeRateLimitConfig, type YamlDocument } from './convert.js';
import type { AnyMessage, DiscoveryRequest, DiscoveryResponse } from './messages.js';
import { adsServiceDefinition, rateLimitConfigTypeUrl } from './protos.js';
import type { XdsLogger } from './xds-logger.js';

export interface ManagementServerOptions {
  /** Directory of `*.yaml`/`*.yml` rate limit configs; each file becomes one resource named after it. */
  readonly directory: string;
  /** Listen address, `host:port` (port 0 picks a free one). */
  readonly address: string;
  readonly credentials?: ServerCredentials;
  /** When set, the directory is re-read at this interval and changes are pushed to every client. */
  readonly pollIntervalMs?: number;
  readonly logger?: XdsLogger;
}

/** What a client sent, with the stream's metadata: tests and operators read ACKs and NACKs from it. */
export interface ObservedRequest {
  readonly request: DiscoveryRequest;
  readonly headers: Record<string, string>;
}

interface Snapshot {
  readonly version: string;
  readonly resources: AnyMessage[];
  readonly fingerprint: string;
}

type AdsCall = ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>;

async function readSnapshotFiles(directory: string): Promise<Array<{ name: string; text: string }>> {
  const names = (await readdir(directory)).filter((name) => /\.ya?ml$/.test(name)).sort();
  return Promise.all(
    names.map(async (name) => ({
      name: basename(name, extname(name)),
      text: await readFile(join(directory, name), 'utf8'),
    })),
  );
}

/**
 * A small state-of-the-world ADS management server for RateLimitConfig resources, serving the YAML
 * files of one directory (for tests and examples/xds). Each change of the directory's contents
 * becomes a new version pushed to every connected client; requests (ACK/NACK) are emitted as
 * `request` events.
 */
export class XdsManagementServer extends EventEmitter<{ request: [ObservedRequest] }> {
  readonly #options: ManagementServerOptions;
  readonly #server = new Server();
  readonly #calls = new Set<AdsCall>();
  #snapshot: Snapshot | undefined;
  #versions = 0;
  #nonces = 0;
  #poller: NodeJS.Timeout | undefined;

  constructor(options: ManagementServerOptions) {
    super();
    this.#options = options;
    this.#server.addService(adsServiceDefinition, {
      StreamAggregatedResources: (call: AdsCall) => this.#onStream(call),
    });
  }

  /** Loads the directory and starts listening; resolves with the bound port. */
  async start(): Promise<number> {
    await this.reload();
    const port = await new Promise<number>((resolve, reject) => {
      this.#server.bindAsync(
        this.#options.address,
        this.#options.credentials ?? ServerCredentials.createInsecure(),
        (error, bound) => (error ? reject(error) : resolve(bound)),
      );
    });
    if (this.#options.pollIntervalMs) {
      this.#poller = setInterval(() => void this.reload(), this.#options.pollIntervalMs);
    }
    return port;
  }

  /** The version currently served ('' before any config). */
  get version(): string {
    return this.#snapshot?.version ?? '';
  }

  /**
   * Re-reads the directory; when its contents changed, serves them as the next version and pushes
   * it to every client. A file that cannot be read or encoded keeps the previous version in place.
   */
  async reload(): Promise<boolean> {
    let resources: AnyMessage[];
    let fingerprint: string;
    try {
      const files = await readSnapshotFiles(this.#options.directory);
      fingerprint = JSON.stringify(files);
      if (fingerprint === this.#snapshot?.fingerprint) return false;
      resources = files.map(({ name, text }) => ({
        type_url: rateLimitConfigTypeUrl,
        value: Buffer.from(encodeRateLimitConfig(name, (parse(text) ?? {}) as YamlDocument)),
      }));
    } catch (error) {
      this.#options.logger?.warn(
        `xDS management server: keeping version ${this.version}: ${(error as Error).message}`,
      );
      return false;
    }
    this.#versions += 1;
    this.#snapshot = { version: String(this.#versions), resources, fingerprint };
    for (const call of this.#calls) this.#send(call);
    this.#options.logger?.info(`xDS management server: serving version ${this.#snapshot.version}`, {
      resources: resources.length,
    });
    return true;
  }

  #onStream(call: AdsCall): void {
    const headers = Object.fromEntries(
      Object.entries(call.metadata.getMap()).map(([key, value]) => [key, String(value)]),
    );
    let subscribed = false;
    call.on('data', (request: DiscoveryRequest) => {
      this.emit('request', { request, headers });
      if (request.type_url !== rateLimitConfigTypeUrl || subscribed) return;
      subscribed = true;
      this.#calls.add(call);
      this.#send(call);
    });
    const forget = () => this.#calls.delete(call);
    call.on('end', () => {
      forget();
      call.end();
    });
    call.on('error', forget);
    call.on('cancelled', forget);
  }

  #send(call: AdsCall): void {
    if (!this.#snapshot) return;
    this.#nonces += 1;
    call.write({
      version_info: this.#snapshot.version,
      resources: this.#snapshot.resources,
      type_url: rateLimitConfigTypeUrl,
      nonce: String(this.#nonces),
    });
  }

  /** Stops at once, cutting open streams (clients see the server go away). */
  async stop(): Promise<void> {
    clearInterval(this.#poller);
    for (const call of this.#calls) call.destroy();
    this.#calls.clear();
    this.#server.forceShutdown();
  }
}
