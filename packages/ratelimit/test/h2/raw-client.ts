import {
  type ClientHttp2Session,
  connect,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2';
import { loadProtos } from '../../src/protocol/proto.js';
import { frame } from '../../src/server/h2/framing.js';

export const RLS_PATH = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

const method = () =>
  loadProtos().rateLimitService.service.ShouldRateLimit as unknown as {
    requestSerialize(value: unknown): Buffer;
    responseDeserialize(bytes: Buffer): { overallCode: string };
  };

/** A serialized RateLimitRequest for `domain` with one descriptor of `key=value`. */
export function requestBytes(domain: string, key: string, value: string): Buffer {
  return method().requestSerialize({ domain, descriptors: [{ entries: [{ key, value }] }], hitsAddend: 1 });
}

export function decodeResponse(bytes: Buffer): { overallCode: string } {
  return method().responseDeserialize(bytes);
}

export interface RawAnswer {
  readonly headers: IncomingHttpHeaders;
  /** Trailers after the data; undefined for a trailers-only answer (the status in `headers`). */
  readonly trailers: IncomingHttpHeaders | undefined;
  readonly body: Buffer;
  /** grpc-status and the decoded grpc-message, wherever they came. */
  readonly status: number;
  readonly message: string;
  /** The RST_STREAM code when the server reset the stream. */
  readonly rstCode: number;
}

/**
 * One request on a plain HTTP/2 stream with the headers and body chunks exactly as given (a library
 * client would not send most of them), written chunk by chunk, so a test controls every frame.
 */
export function rawRequest(
  session: ClientHttp2Session,
  headers: OutgoingHttpHeaders,
  chunks: readonly Buffer[],
  options: { endStream?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(
      {
        ':method': 'POST',
        ':path': RLS_PATH,
        'content-type': 'application/grpc',
        te: 'trailers',
        ...headers,
      },
      { endStream: false },
    );
    let responseHeaders: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders | undefined;
    const body: Buffer[] = [];
    stream.on('response', (received) => {
      responseHeaders = received;
    });
    stream.on('trailers', (received) => {
      trailers = received;
    });
    stream.on('data', (chunk: Buffer) => body.push(chunk));
    stream.on('error', () => {});
    stream.on('close', () => {
      const source = trailers ?? responseHeaders;
      const status = source['grpc-status'];
      if (status === undefined && stream.rstCode === 0) {
        reject(new Error(`no grpc-status in ${JSON.stringify(responseHeaders)}`));
        return;
      }
      resolve({
        headers: responseHeaders,
        trailers,
        body: Buffer.concat(body),
        status: Number(status ?? -1),
        message: decodeURIComponent(String(source['grpc-message'] ?? '')),
        rstCode: stream.rstCode ?? 0,
      });
    });
    (async () => {
      for (const chunk of chunks) {
        if (stream.destroyed) return;
        stream.write(chunk);
        // One DATA frame per chunk: let each go out before the next is written.
        await new Promise((done) => setImmediate(done));
      }
      if (options.endStream !== false && !stream.destroyed) stream.end();
    })();
  });
}

export function rlsFrame(domain = 'd', key = 'k', value = 'v'): Buffer {
  return frame(requestBytes(domain, key, value));
}

export function connectPlain(port: number): ClientHttp2Session {
  const session = connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  return session;
}
