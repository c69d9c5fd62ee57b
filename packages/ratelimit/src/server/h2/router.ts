import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { MethodDefinition, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { H2Call } from './call.js';
import { type Encoding, MessageReader } from './framing.js';
import { ACCEPT_ENCODING, type CallStatus, Code, percentEncode } from './status.js';
import { MAX_TIMER_MS, parseGrpcTimeout } from './timeout.js';

type UnaryHandler = (call: H2Call, callback: (error: unknown, value?: unknown) => void) => void;
type StreamHandler = (call: H2Call) => void;

/** How a method takes its request: one message (unary, server streaming) or a stream of them. */
interface Route {
  readonly kind: 'unary' | 'server-stream' | 'bidi';
  readonly deserialize: (bytes: Buffer) => unknown;
  readonly serialize: (message: never) => Buffer;
  readonly handler: UnaryHandler | StreamHandler;
}

/**
 * Routes each HTTP/2 stream to its gRPC method by `:path`, after the protocol's checks
 * (PROTOCOL-HTTP2.md and grpc-go's answers): a method other than POST gets HTTP 405, a
 * content-type other than application/grpc[+…] HTTP 415, an unknown service or method
 * UNIMPLEMENTED, an encoding other than identity and gzip UNIMPLEMENTED with the encodings it
 * takes, a malformed grpc-timeout INTERNAL. Services are added with grpc-js' definitions and
 * handlers.
 */
export class GrpcRouter {
  readonly #routes = new Map<string, Route>();
  readonly #services = new Set<string>();
  readonly #maxMessageBytes: number;

  constructor(maxMessageBytes: number) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void {
    for (const [name, method] of Object.entries(definition) as Array<
      [string, MethodDefinition<unknown, unknown>]
    >) {
      const handler = implementation[name] ?? implementation[method.originalName ?? ''];
      if (!handler) throw new Error(`no handler for ${method.path}`);
      if (method.requestStream && !method.responseStream) {
        throw new Error(`${method.path}: client streaming is not served by this transport`);
      }
      const kind = method.requestStream ? 'bidi' : method.responseStream ? 'server-stream' : 'unary';
      this.#routes.set(method.path, {
        kind,
        deserialize: method.requestDeserialize,
        serialize: method.responseSerialize as (message: never) => Buffer,
        handler: handler as unknown as UnaryHandler | StreamHandler,
      });
      this.#services.add(serviceOf(method.path));
    }
  }

  /** The HTTP/2 server's 'stream' listener. */
  readonly handle = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void => {
    stream.on('error', ignore);
    if (headers[':method'] !== 'POST') {
      refuse(stream, 405, {
        code: Code.INTERNAL,
        details: `invalid gRPC request method ${headers[':method']}`,
      });
      return;
    }
    const contentType = headers['content-type'];
    if (!isGrpcContentType(contentType)) {
      refuse(stream, 415, {
        code: Code.INTERNAL,
        details: `invalid gRPC request content-type ${JSON.stringify(contentType ?? '')}`,
      });
      return;
    }
    const path = headers[':path'] ?? '';
    const route = this.#routes.get(path);
    if (!route) {
      const service = serviceOf(path);
      refuse(stream, 200, {
        code: Code.UNIMPLEMENTED,
        details: this.#services.has(service)
          ? `unknown method ${path.slice(service.length + 2)} for service ${service}`
          : `unknown service ${service}`,
      });
      return;
    }
    const encoding = requestEncoding(headers['grpc-encoding']);
    if (encoding === undefined) {
      refuse(
        stream,
        200,
        {
          code: Code.UNIMPLEMENTED,
          details: `grpc: Decompressor is not installed for grpc-encoding ${JSON.stringify(headers['grpc-encoding'])}`,
        },
        { 'grpc-accept-encoding': ACCEPT_ENCODING },
      );
      return;
    }
    const timeoutMs = parseGrpcTimeout(headers['grpc-timeout']);
    if (Number.isNaN(timeoutMs)) {
      refuse(stream, 200, {
        code: Code.INTERNAL,
        details: `malformed grpc-timeout ${JSON.stringify(headers['grpc-timeout'])}`,
      });
      return;
    }
    const call = new H2Call(stream, headers, route.serialize);
    const deadline = timeoutMs !== undefined && timeoutMs < MAX_TIMER_MS;
    if (deadline) call.setDeadline(timeoutMs);
    // A stream that closes before the call has sent its status was cancelled (RST_STREAM, or the
    // connection went). Only streaming handlers listen for that; a unary call needs it only to
    // stop its deadline timer (its late answer finds the stream destroyed and goes nowhere).
    if (route.kind !== 'unary' || deadline) {
      stream.once('close', () => {
        if (!call.done) call.cancel();
        call.emit('close');
      });
    }
    if (route.kind !== 'unary') call.endOnError();
    const reader = new MessageReader(this.#maxMessageBytes, encoding);
    if (route.kind === 'bidi') readStream(stream, reader, route, call);
    else readOne(stream, reader, route, call);
  };
}

/** Unary and server streaming: exactly one request message, then the handler runs. */
function readOne(stream: ServerHttp2Stream, reader: MessageReader, route: Route, call: H2Call): void {
  let message: Buffer | undefined;
  let count = 0;
  const onMessage = (bytes: Buffer) => {
    message = bytes;
    count++;
    return true;
  };
  feed(stream, reader, call, onMessage, (problem) => {
    if (problem) return call.sendStatus(problem);
    if (count !== 1) {
      return call.sendStatus({
        code: count === 0 ? Code.INTERNAL : Code.UNIMPLEMENTED,
        details: count === 0 ? 'no request message' : 'more than one request message for a unary request',
      });
    }
    let request: unknown;
    try {
      request = route.deserialize(message as Buffer);
    } catch (error) {
      return call.sendStatus({
        code: Code.INTERNAL,
        details: `error parsing request: ${(error as Error).message}`,
      });
    }
    call.request = request;
    try {
      if (route.kind === 'unary')
        (route.handler as UnaryHandler)(call, (error, value) => answer(call, error, value));
      else (route.handler as StreamHandler)(call);
    } catch (error) {
      call.sendStatus({ code: Code.UNKNOWN, details: `method handler threw: ${(error as Error).message}` });
    }
  });
}

/** Bidirectional: the handler runs at once and gets every request message as 'data', then 'end'. */
function readStream(stream: ServerHttp2Stream, reader: MessageReader, route: Route, call: H2Call): void {
  const onMessage = (bytes: Buffer): boolean => {
    if (call.done) return true;
    let message: unknown;
    try {
      message = route.deserialize(bytes);
    } catch (error) {
      abort(call, { code: Code.INTERNAL, details: `error parsing request: ${(error as Error).message}` });
      return false;
    }
    call.emit('data', message);
    return true;
  };
  feed(stream, reader, call, onMessage, (problem) => {
    if (problem) call.sendStatus(problem);
    else call.emit('end');
  });
  try {
    (route.handler as StreamHandler)(call);
  } catch (error) {
    call.sendStatus({ code: Code.UNKNOWN, details: `method handler threw: ${(error as Error).message}` });
  }
}

/**
 * Reads the stream's DATA through `reader`, each whole message to `onMessage`, and once the client
 * has ended gives `onEnd` what the reader says of the rest. A framing problem aborts the call, as
 * does a message `onMessage` refuses (false); nothing more is read after either.
 */
function feed(
  stream: ServerHttp2Stream,
  reader: MessageReader,
  call: H2Call,
  onMessage: (bytes: Buffer) => boolean,
  onEnd: (problem: CallStatus | undefined) => void,
): void {
  let failed = false;
  const deliver = (bytes: Buffer) => {
    if (!failed && onMessage(bytes) === false) failed = true;
  };
  stream.on('data', (chunk: Buffer) => {
    if (failed) return;
    const problem = reader.push(chunk, deliver);
    if (problem) {
      failed = true;
      abort(call, problem);
    }
  });
  stream.on('end', () => {
    if (failed || call.done) return;
    onEnd(reader.end());
  });
}

/** The handler's callback of a unary call. */
function answer(call: H2Call, error: unknown, value: unknown): void {
  if (error) {
    const status = error as { code?: number; details?: string; message?: string };
    call.sendStatus({ code: status.code ?? Code.UNKNOWN, details: status.details ?? status.message });
  } else {
    call.reply(value);
  }
}

/**
 * Ends a call whose request broke a rule while the client may still be sending: the status, then
 * the stream is reset so the rest of the body is not read.
 */
function abort(call: H2Call, status: CallStatus): void {
  call.sendStatus(status, true);
}

/** An answer before any call exists: the status in the one HEADERS frame, then the stream ends. */
function refuse(
  stream: ServerHttp2Stream,
  httpStatus: number,
  status: CallStatus,
  extra: OutgoingHttpHeaders = {},
): void {
  stream.respond(
    {
      ':status': httpStatus,
      'content-type': 'application/grpc',
      'grpc-status': String(status.code),
      'grpc-message': percentEncode(status.details ?? ''),
      ...extra,
    },
    { endStream: true },
  );
  // The request body, if the client is still sending one, is not wanted.
  if (!stream.readableEnded) stream.close();
}

function isGrpcContentType(value: string | undefined): boolean {
  if (value === undefined || !value.startsWith('application/grpc')) return false;
  const next = value.charCodeAt(16);
  return Number.isNaN(next) || next === 0x2b /* + */ || next === 0x3b /* ; */;
}

function requestEncoding(value: string | string[] | undefined): Encoding | undefined {
  if (value === undefined || value === 'identity') return 'identity';
  return value === 'gzip' ? 'gzip' : undefined;
}

/** `/package.Service/Method` → `package.Service`. */
function serviceOf(path: string): string {
  const slash = path.indexOf('/', 1);
  return slash < 0 ? path.slice(1) : path.slice(1, slash);
}

function ignore(): void {}
