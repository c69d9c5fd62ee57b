import type { Http2Server, ServerHttp2Session } from 'node:http2';
import type { Server } from '@grpc/grpc-js';

/**
 * Closes gRPC connections that have not sent the HTTP/2 preface (the magic string and a SETTINGS
 * frame) within `timeoutMs` of being accepted, as grpc-go's connection timeout does (120 s).
 * grpc-js sets no such bound, so a client that connects and stays silent holds a descriptor for
 * good. TLS handshakes are bounded by Node's own handshake timeout (also 120 s) before that.
 *
 * grpc-js keeps its HTTP/2 servers in a private map and offers no hook for new sessions; this
 * reads the map after binding. Returns false when the map is not there (a grpc-js change), so
 * the caller can say the bound is off; the handshake test fails in that case.
 */
export function boundGrpcHandshakes(server: Server, timeoutMs: number): boolean {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return false;
  for (const http2Server of servers.keys() as Iterable<Http2Server>) {
    http2Server.prependListener('session', (session: ServerHttp2Session) => {
      const timer = setTimeout(() => session.destroy(), timeoutMs).unref();
      session.once('remoteSettings', () => clearTimeout(timer));
      session.once('close', () => clearTimeout(timer));
    });
  }
  return true;
}
