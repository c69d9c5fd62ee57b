import { ServerInterceptingCall, type ServerInterceptor, status } from '@grpc/grpc-js';

/** The DNS names in a certificate's subjectAltName, as Node prints it (`DNS:a, IP Address:1.2.3.4`). */
export function dnsNames(subjectAltName: string | undefined): string[] {
  return (subjectAltName ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.startsWith('DNS:'))
    .map((entry) => entry.slice(4));
}

/**
 * GRPC_CLIENT_TLS_SAN: the CA check already passed during the handshake; this rejects calls whose
 * client certificate does not carry the required DNS name, with UNAUTHENTICATED, before any handler runs.
 */
export function requireClientSan(san: string): ServerInterceptor {
  return (_method, call) =>
    new ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata, forward) => {
            const certificate = call.getAuthContext().sslPeerCertificate;
            if (dnsNames(certificate?.subjectaltname).includes(san)) {
              forward(metadata);
              return;
            }
            call.sendStatus({
              code: status.UNAUTHENTICATED,
              details: `client certificate does not carry the subject alternative name '${san}'`,
            });
          },
        });
      },
    });
}
