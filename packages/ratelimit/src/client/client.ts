import {
  type CallOptions,
  type ChannelCredentials,
  type Client,
  type ClientReadableStream,
  credentials as grpcCredentials,
  Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadProtos } from '../protocol/proto.js';

/** What the client sends: proto3-JSON-shaped RateLimitRequest fields (camelCase). */
export interface ClientRequest {
  readonly domain: string;
  readonly descriptors: ReadonlyArray<{
    readonly entries: ReadonlyArray<{ readonly key: string; readonly value: string }>;
    readonly limit?: { readonly requestsPerUnit: number; readonly unit: string };
    readonly hitsAddend?: { readonly value: number };
  }>;
  readonly hitsAddend?: number;
}

type Unary = (
  request: unknown,
  metadata: Metadata,
  options: CallOptions,
  callback: (error: ServiceError | null, response: unknown) => void,
) => void;

/**
 * A grpc-js client of RateLimitService and grpc.health.v1.Health: the one client of the service,
 * for the CLI, the library's RemoteRateLimiter and tests. The health client is made on first use.
 */
export class RateLimitClient {
  private readonly rls: Client;
  private healthClient: Client | undefined;

  constructor(
    private readonly address: string,
    private readonly credentials: ChannelCredentials = grpcCredentials.createInsecure(),
  ) {
    this.rls = new (loadProtos().rateLimitService)(address, credentials);
  }

  /**
   * Resolves to the decoded RateLimitResponse; rejects with the grpc-js ServiceError (also when
   * `options.deadline`, a time in ms since the epoch, passes first).
   */
  shouldRateLimit(
    request: ClientRequest,
    metadata = new Metadata(),
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.call(this.rls, 'ShouldRateLimit', request, metadata, options);
  }

  private get health(): Client {
    this.healthClient ??= new (loadProtos().health)(this.address, this.credentials);
    return this.healthClient;
  }

  check(service: string): Promise<{ status: string }> {
    return this.call(this.health, 'Check', { service }) as Promise<{ status: string }>;
  }

  /** grpc.health.v1.Health/Watch: a stream of `{status}` messages. */
  watch(service: string): ClientReadableStream<{ status: string }> {
    const fn = (
      this.health as unknown as Record<string, (request: unknown) => ClientReadableStream<{ status: string }>>
    ).Watch as (request: unknown) => ClientReadableStream<{ status: string }>;
    return fn.call(this.health, { service });
  }

  private call(
    client: Client,
    method: string,
    request: unknown,
    metadata = new Metadata(),
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    const fn = (client as unknown as Record<string, Unary>)[method] as Unary;
    return new Promise((resolve, reject) =>
      fn.call(client, request, metadata, options, (error, response) =>
        error ? reject(error) : resolve(response as Record<string, unknown>),
      ),
    );
  }

  close(): void {
    this.rls.close();
    this.healthClient?.close();
  }
}
