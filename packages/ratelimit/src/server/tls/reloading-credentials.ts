import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { ServerCredentials, type ServerInterceptor } from '@grpc/grpc-js';
import { SettingsError } from '../../errors.js';
import { requireClientSan } from './client-san.js';

export interface ServerTlsFiles {
  /** GRPC_SERVER_TLS_CERT: certificate chain (PEM). */
  readonly certFile: string;
  /** GRPC_SERVER_TLS_KEY: private key (PEM). */
  readonly keyFile: string;
  /** GRPC_CLIENT_TLS_CACERT: when set, clients must present a certificate signed by this CA (mTLS). */
  readonly clientCaFile?: string | undefined;
  /** GRPC_CLIENT_TLS_SAN: when set (with mTLS), the client certificate must carry this DNS name. */
  readonly clientSan?: string | undefined;
}

export interface ReloadObserver {
  reloaded(): void;
  failed(error: Error): void;
}

/** The certificate, key and client CA as context options, checked by building a context from them. */
export function loadContextOptions(files: ServerTlsFiles): SecureContextOptions {
  const options: SecureContextOptions = {
    cert: readFileSync(files.certFile),
    key: readFileSync(files.keyFile),
  };
  if (files.clientCaFile) options.ca = readFileSync(files.clientCaFile);
  // Parses and pairs cert and key now, so a half-written rotation is caught here, not in a handshake.
  createSecureContext(options);
  return options;
}

/** The files at startup: one that does not load is a settings error, which stops the start. */
export function loadInitialContextOptions(files: ServerTlsFiles): SecureContextOptions {
  try {
    return loadContextOptions(files);
  } catch (error) {
    throw new SettingsError(
      'GRPC_SERVER_TLS_CERT',
      `cannot load the gRPC server certificate '${files.certFile}' and key '${files.keyFile}'${
        files.clientCaFile ? ` and client CA '${files.clientCaFile}'` : ''
      }: ${(error as Error).message}`,
    );
  }
}

/**
 * gRPC server TLS whose certificate, key and client CA are re-read when the files change, so new
 * handshakes see a rotated certificate within about one poll interval and no restart is needed.
 * Files are polled (fs.watchFile) because rotations usually rename a new file over the old one.
 * If the new files do not load (e.g. a key that does not match yet) the previous ones stay in force.
 */
export class ReloadingServerCredentials extends ServerCredentials {
  readonly #files: ServerTlsFiles;
  readonly #observer: ReloadObserver | undefined;
  readonly #watched: string[];
  readonly #onChange = () => this.#reload();
  readonly #interceptors: ServerInterceptor[];

  constructor(files: ServerTlsFiles, options: { pollIntervalMs?: number; observer?: ReloadObserver } = {}) {
    const initial = loadInitialContextOptions(files);
    const mutual = files.clientCaFile !== undefined && files.clientCaFile !== '';
    super({ requestCert: mutual, rejectUnauthorized: mutual }, initial);
    this.#files = files;
    this.#observer = options.observer;
    this.#interceptors = mutual && files.clientSan ? [requireClientSan(files.clientSan)] : [];
    const interval = options.pollIntervalMs ?? 1000;
    this.#watched = [
      files.certFile,
      files.keyFile,
      ...(mutual && files.clientCaFile ? [files.clientCaFile] : []),
    ];
    for (const file of this.#watched) watchFile(file, { interval, persistent: false }, this.#onChange);
  }

  #reload(): void {
    try {
      this.updateSecureContextOptions(loadContextOptions(this.#files));
      this.#observer?.reloaded();
    } catch (error) {
      this.#observer?.failed(error as Error);
    }
  }

  override _getInterceptors(): ServerInterceptor[] {
    return this.#interceptors;
  }

  override _equals(other: ServerCredentials): boolean {
    return other === this;
  }

  /** Stops watching the files. */
  close(): void {
    for (const file of this.#watched) unwatchFile(file, this.#onChange);
  }
}
