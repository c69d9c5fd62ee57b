import { unwatchFile, watchFile } from 'node:fs';
import type { Socket } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { dnsNames } from '../tls/client-san.js';
import {
  loadContextOptions,
  loadInitialContextOptions,
  type ReloadObserver,
  type ServerTlsFiles,
} from '../tls/reloading-credentials.js';

export interface TlsListenerOptions {
  readonly handshakeTimeoutMs: number;
  readonly pollIntervalMs?: number | undefined;
  readonly observer?: ReloadObserver | undefined;
}

/**
 * The TLS side of the h2 transport: a TLS server that hands each connection, once its handshake
 * passed, to `onSecure` (the HTTP/2 server). Its certificate, key and client CA are re-read when
 * the files change (polled, as rotations rename new files over old ones) and take effect for new
 * handshakes through setSecureContext; files that do not load leave the previous ones in force.
 * With a client CA, a client without a certificate it signed fails the handshake; with
 * GRPC_CLIENT_TLS_SAN, a certificate without that DNS name is cut off at the end of the handshake,
 * before the HTTP/2 session starts, so it never reaches a handler.
 */
export function createTlsListener(
  files: ServerTlsFiles,
  options: TlsListenerOptions,
  onSecure: (socket: Socket) => void,
): { readonly server: Server; close(): void } {
  const initial = loadInitialContextOptions(files);
  const mutual = Boolean(files.clientCaFile);
  const san = mutual ? files.clientSan || undefined : undefined;
  const server = createServer(
    {
      ...initial,
      ALPNProtocols: ['h2'],
      requestCert: mutual,
      rejectUnauthorized: mutual,
      handshakeTimeout: options.handshakeTimeoutMs,
    },
    (socket: TLSSocket) => {
      if (san !== undefined && !dnsNames(socket.getPeerCertificate().subjectaltname).includes(san)) {
        socket.destroy();
        return;
      }
      onSecure(socket);
    },
  );
  // A failed or timed-out handshake ends that connection only (Node leaves the socket open).
  server.on('tlsClientError', (_error, socket) => socket.destroy());
  const reload = () => {
    try {
      server.setSecureContext(loadContextOptions(files));
      options.observer?.reloaded();
    } catch (error) {
      options.observer?.failed(error as Error);
    }
  };
  const watched = [
    files.certFile,
    files.keyFile,
    ...(mutual && files.clientCaFile ? [files.clientCaFile] : []),
  ];
  const interval = options.pollIntervalMs ?? 1000;
  for (const file of watched) watchFile(file, { interval, persistent: false }, reload);
  return {
    server,
    close: () => {
      for (const file of watched) unwatchFile(file, reload);
    },
  };
}
