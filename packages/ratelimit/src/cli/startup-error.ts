import { SettingsError, StartupError } from '../errors.js';
import { GrpcBindError } from '../server/grpc-transport.js';

/** One listener of the service and the settings that place it, to name them in an error. */
export interface Listener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  readonly hostSetting: string;
  readonly portSetting: string;
  /** gRPC reports its bind failures in its own words (see grpcBindFailure). */
  readonly grpc?: boolean;
}

interface SocketFailure {
  readonly code: string;
  readonly host: string;
  readonly port?: number;
  readonly grpc: boolean;
}

const WHY: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'address not available on this machine',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
};

/**
 * The one line a failed start prints: the value, what is wrong with it and the setting to change,
 * e.g. `cannot listen on 0.0.0.0:8081 (gRPC): address already in use; set GRPC_PORT to a free port`.
 */
export function describeStartupError(error: unknown, listeners: readonly Listener[]): string {
  if (error instanceof SettingsError) return `invalid setting ${error.message}`;
  if (error instanceof StartupError) return error.message;
  const failure = socketFailure(error);
  const listener = failure && culprit(failure, listeners);
  if (!failure || !listener) return `cannot start: ${firstLine(error)}`;
  const samePort = listeners.filter((each) => each.port === failure.port);
  if (failure.code === 'EADDRINUSE' && samePort.length > 1) {
    const settings = samePort.map((each) => each.portSetting).join(' and ');
    return `cannot listen on ${joinHostPort(listener.host, listener.port)}: ${settings} are both ${listener.port}; give each listener its own port`;
  }
  const why = WHY[failure.code] ?? failure.code;
  if (failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN' || failure.code === 'EADDRNOTAVAIL') {
    return `cannot listen on ${listener.host} (${listener.name}): ${why}; set ${listener.hostSetting} to an address of this machine, such as 127.0.0.1 or 0.0.0.0`;
  }
  const change = failure.code === 'EACCES' ? 'a port of 1024 or higher' : 'a free port (0 picks one)';
  return `cannot listen on ${joinHostPort(listener.host, listener.port)} (${listener.name}): ${why}; set ${listener.portSetting} to ${change}`;
}

/** The stack too, for LOG_LEVEL=debug. */
export function startupErrorDetail(error: unknown): string {
  return error instanceof Error && error.stack ? error.stack : String(error);
}

/** A socket error from node:net (listen, getaddrinfo), the h2 transport's bind (GrpcBindError) or grpc-js' bind. */
function socketFailure(error: unknown): SocketFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const grpc = error instanceof GrpcBindError;
  const errno = (grpc ? error.cause : error) as NodeJS.ErrnoException & {
    address?: string;
    port?: number;
    hostname?: string;
  };
  if (errno.code !== undefined && errno.code in WHY) {
    return { code: errno.code, host: errno.address ?? errno.hostname ?? '', port: errno.port, grpc };
  }
  return grpcBindFailure(error.message);
}

/**
 * grpc-js rejects a bind with text only: `No address added out of total 1 resolved errors: [listen
 * EADDRINUSE: address already in use 127.0.0.1:8081]` or `Name resolution failed for target dns:h:p`.
 */
function grpcBindFailure(message: string): SocketFailure | undefined {
  const listen = /errors: \[listen (E[A-Z]+): [^\]]*? (\S+?)(?::(\d+))?[,\]]/.exec(message);
  if (listen) {
    const port = listen[3] === undefined ? undefined : Number(listen[3]);
    return { code: listen[1] as string, host: listen[2] as string, port, grpc: true };
  }
  const resolution = /^Name resolution failed for target dns:(.*):\d+$/.exec(message);
  if (resolution) return { code: 'ENOTFOUND', host: resolution[1] as string, grpc: true };
  return undefined;
}

/**
 * The listener the failure belongs to: the one on the failed port, or with the failed host. A gRPC
 * failure can only be gRPC's; a node:net one, the HTTP or debug listener's.
 */
function culprit(failure: SocketFailure, listeners: readonly Listener[]): Listener | undefined {
  const candidates = listeners.filter((listener) => (listener.grpc ?? false) === failure.grpc);
  if (failure.port !== undefined) return candidates.find((listener) => listener.port === failure.port);
  return candidates.find((listener) => listener.host === failure.host);
}

function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] as string;
}
