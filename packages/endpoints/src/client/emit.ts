import type { OpenApiDocument } from '../openapi/document.js';

type Json = Record<string, unknown>;

/** What the clients need of one operation, read from the document. */
interface Operation {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly pathParams: boolean;
  /** Absent, optional or required query parameters. */
  readonly query: 'none' | 'optional' | 'required';
  readonly body: 'none' | 'optional' | 'required';
  /** Success statuses with a JSON body, and whether one answers with no body. */
  readonly jsonStatuses: readonly string[];
  readonly textStatuses: readonly string[];
  readonly empty: boolean;
  /** Error statuses (4xx, 5xx, default) with a JSON body, and whether one has another body. */
  readonly errorJsonStatuses: readonly string[];
  readonly errorText: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function operationsOf(document: OpenApiDocument): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation || typeof operation.operationId !== 'string') continue;
      const parameters = (operation.parameters as Json[] | undefined) ?? [];
      const query = parameters.filter((parameter) => parameter.in === 'query');
      const requestBody = operation.requestBody as Json | undefined;
      const all = Object.entries((operation.responses as Record<string, Json>) ?? {});
      const responses = all.filter(([status]) => status.startsWith('2'));
      const errors = all.filter(([status]) => !/^[123]/.test(status));
      const contentOf = (response: Json) => Object.keys((response.content as Json | undefined) ?? {});
      found.push({
        id: operation.operationId,
        method: method.toUpperCase(),
        path,
        pathParams: parameters.some((parameter) => parameter.in === 'path'),
        query:
          query.length === 0
            ? 'none'
            : query.some((parameter) => parameter.required)
              ? 'required'
              : 'optional',
        body: requestBody ? (requestBody.required ? 'required' : 'optional') : 'none',
        jsonStatuses: responses
          .filter(([, response]) => contentOf(response).includes('application/json'))
          .map(([status]) => status),
        textStatuses: responses
          .filter(
            ([, response]) =>
              contentOf(response).length > 0 && !contentOf(response).includes('application/json'),
          )
          .map(([status]) => status),
        empty: responses.some(([, response]) => contentOf(response).length === 0),
        errorJsonStatuses: errors
          .filter(([, response]) => contentOf(response).includes('application/json'))
          .map(([status]) => status),
        errorText: errors.some(
          ([, response]) =>
            contentOf(response).length > 0 && !contentOf(response).includes('application/json'),
        ),
      });
    }
  }
  return found.sort((a, b) => a.id.localeCompare(b.id));
}

const quote = (text: string) => JSON.stringify(text);

/** A status as openapi-typescript keys it: a number, or a quoted name (`default`, `4XX`). */
const statusKey = (status: string) => (/^\d+$/.test(status) ? status : quote(status));

/** Whether an operation may be called without input: nothing in it is required. */
const inputOptional = (operation: Operation) =>
  !operation.pathParams && operation.query !== 'required' && operation.body !== 'required';

/** The declared input, reply and error types of one operation, as indexed accesses into `operations`. */
function operationTypes(operation: Operation): string {
  const op = `operations[${quote(operation.id)}]`;
  const params: string[] = [];
  if (operation.pathParams) params.push(`path: ${op}['parameters']['path']`);
  if (operation.query !== 'none')
    params.push(`query${operation.query === 'optional' ? '?' : ''}: ${op}['parameters']['query']`);
  const input: string[] = [];
  if (params.length > 0) {
    const optional = !operation.pathParams && operation.query !== 'required';
    input.push(`params${optional ? '?' : ''}: { ${params.join('; ')} }`);
  }
  if (operation.body !== 'none') {
    input.push(
      `body${operation.body === 'optional' ? '?' : ''}: NonNullable<${op}['requestBody']>['content']['application/json']`,
    );
  }
  const replies = [
    ...operation.jsonStatuses.map(
      (status) => `${op}['responses'][${statusKey(status)}]['content']['application/json']`,
    ),
    ...(operation.textStatuses.length > 0 ? ['string'] : []),
    ...(operation.empty ? ['undefined'] : []),
  ];
  const errors = [
    ...operation.errorJsonStatuses.map(
      (status) => `${op}['responses'][${statusKey(status)}]['content']['application/json']`,
    ),
    ...(operation.errorText ? ['string'] : []),
  ];
  return [
    `  ${quote(operation.id)}: {`,
    `    input: ${input.length > 0 ? `{ ${input.join('; ')} }` : '{}'};`,
    `    reply: ${replies.length > 0 ? replies.join(' | ') : 'unknown'};`,
    `    error: ${errors.length > 0 ? errors.join(' | ') : 'unknown'};`,
    '  };',
  ].join('\n');
}

/**
 * One method per operation, its signature written out: a consumer's call is checked against these
 * declarations, with none of openapi-fetch's generic inference over `paths` (about 7 ms a call).
 */
function httpMethod(operation: Operation): string {
  const types = `OperationTypes[${quote(operation.id)}]`;
  const input = `input${inputOptional(operation) ? '?' : ''}: ${types}['input']`;
  return [
    `  /** \`${operation.method} ${operation.path}\` */`,
    `  ${operation.id}(${input}, options?: CallOptions): Promise<HttpResult<${types}>>;`,
  ].join('\n');
}

function routeTable(operations: readonly Operation[]): string {
  const rows = operations.map(
    (operation) =>
      `  ${quote(operation.id)}: { method: ${quote(operation.method)}, path: ${quote(operation.path)} },`,
  );
  return `export const operationRoutes = {\n${rows.join('\n')}\n} as const;`;
}

/**
 * The module `endpoints client` writes: the document's types as openapi-typescript declares them
 * (`paths`, `components`, `operations`), an HTTP client on openapi-fetch, and a WebSocket client
 * with one `send` per operation, whose types are indexed accesses into the same declarations. The
 * consumer's compiler reads declared types only; nothing is inferred from the server.
 */
export async function emitClient(document: OpenApiDocument): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const declarations = astToString(await openapiTS(document as never, { alphabetize: true }));
  const operations = operationsOf(document);
  const info = document.info as { title?: string; version?: string };
  return [
    `/**`,
    ` * Typed client of ${info.title ?? 'the API'} ${info.version ?? ''}, written by \`endpoints client\`: do not edit,`,
    ' * generate it again. HTTP: `createHttpClient({ baseUrl })`, then `http.<operationId>(input)`',
    ' * (openapi-fetch underneath, as `http.raw`). WebSocket: `connectSocket(url, { WebSocket })`,',
    ' * then `socket.send.<operationId>(input)`. Its code was type-checked when it was written, so',
    " * `@ts-nocheck` spares a consumer's tsc that work; calls into it are checked as ever.",
    ' */',
    '/* eslint-disable */',
    // test/client.test.ts compiles the module without this line under strict tsc; a consumer's tsc
    // then need not check it again (as skipLibCheck skips a library's .d.ts): a third of its time.
    '// @ts-nocheck',
    "import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';",
    '',
    declarations.trim(),
    '',
    '/** Method and path template of every operation, which both clients put in their requests. */',
    routeTable(operations),
    '',
    '/**',
    ' * Per operation: its input (`params.path`, `params.query`, `body`), its success body (`reply`)',
    ' * and its error body (`error`).',
    ' */',
    `export interface OperationTypes {\n${operations.map(operationTypes).join('\n')}\n}`,
    '',
    HTTP_TYPES.trim(),
    '',
    '/** One method per operation (`http.<operationId>(input)`), and the openapi-fetch client as `raw`. */',
    `export interface HttpClient {\n${operations.map(httpMethod).join('\n')}\n  /** openapi-fetch's client over \`paths\`, for calls by path template. */\n  readonly raw: Client<paths>;\n}`,
    '',
    HTTP_RUNTIME.trim(),
    '',
    SOCKET_RUNTIME.trim(),
    '',
  ].join('\n');
}

/** The HTTP client's shared types, written into every emitted module as they are here. */
const HTTP_TYPES = `
/** Per call: headers added to the client's, and a signal to abort it. */
export interface CallOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** What an HTTP call resolves with, as openapi-fetch answers: the success body, or the error body. */
export type HttpResult<Types extends { reply: unknown; error: unknown }> =
  | { data: Types['reply']; error?: never; response: Response }
  | { data?: never; error: Types['error']; response: Response };
`;

/** The HTTP client, written into every emitted module as it is here. */
const HTTP_RUNTIME = `
/** An HTTP client with one method per operation of the document (openapi-fetch sends the requests). */
export function createHttpClient(options: ClientOptions = {}): HttpClient {
  const raw = createFetchClient<paths>(options);
  // The one untyped door: each method's types are declared in HttpClient, so none is inferred here.
  const request = raw.request as unknown as (method: string, path: string, init: object) => Promise<unknown>;
  const methods = Object.fromEntries(
    Object.entries(operationRoutes).map(([operation, route]) => [
      operation,
      (input: object = {}, call: CallOptions = {}) => request(route.method, route.path, { ...call, ...input }),
    ]),
  );
  return { ...methods, raw } as unknown as HttpClient;
}
`;

/** The WebSocket client, written into every emitted module as it is here. */
const SOCKET_RUNTIME = `
/** Senders, one per operation; an operation that needs no input may be called without one. */
export type SocketSenders = {
  [K in keyof OperationTypes]: {} extends OperationTypes[K]['input']
    ? (input?: OperationTypes[K]['input']) => Promise<OperationTypes[K]['reply']>
    : (input: OperationTypes[K]['input']) => Promise<OperationTypes[K]['reply']>;
};

export interface SocketOptions {
  /** The WebSocket class: the global one by default; in Node 20, pass the \`ws\` package's. */
  WebSocket?: new (url: string) => object;
  /** Reconnect after an unexpected close: at most \`attempts\` times in a row (default 5; 0 = never). */
  reconnect?: { attempts?: number; delayMs?: (attempt: number) => number };
  /** How long \`send\` waits for its reply, in milliseconds (default 30000). */
  timeoutMs?: number;
  /** Called when a connection closes, with its close code and whether the client will reconnect. */
  onClose?: (code: number, reconnecting: boolean) => void;
}

/** A reply with an error status (its \`body\` is the server's error body), or a connection that ended. */
export class SocketError extends Error {
  readonly code: number;
  readonly body: unknown;

  constructor(code: number, body: unknown, message: string) {
    super(message);
    this.name = 'SocketError';
    this.code = code;
    this.body = body;
  }
}

export interface SocketClient {
  /** \`send.<operationId>(input)\`: resolves with the reply carrying the same uuid. */
  readonly send: SocketSenders;
  /** Settles when the first connection is accepted (the server's CONNECT answered) or refused. */
  readonly ready: Promise<void>;
  /** Closes for good: no reconnecting; replies still awaited are rejected. */
  close(): void;
}

interface SocketLike {
  send(data: string): void;
  close(code?: number): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

interface ReplyFrame {
  uuid?: string;
  code: number;
  body?: unknown;
}

interface Waiting {
  resolve(body: unknown): void;
  reject(error: SocketError): void;
  timer: ReturnType<typeof setTimeout>;
}

const defaultDelay = (attempt: number) => Math.min(5000, 250 * 2 ** (attempt - 1));

/** The target a frame names: the path template filled in, and the query string. */
function frameTarget(template: string, params: { path?: object; query?: object } | undefined): string {
  const pathValues = (params?.path ?? {}) as Record<string, unknown>;
  const path = template.replace(/\\{([^}]+)\\}/g, (_, name: string) => encodeURIComponent(String(pathValues[name])));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries((params?.query ?? {}) as Record<string, unknown>)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  const query = search.toString();
  return query === '' ? path : \`\${path}?\${query}\`;
}

/**
 * Opens a WebSocket to a controller path (its CONNECT runs), and sends each operation as the frame
 * \`{path, method, body, uuid}\`, resolving on the reply \`{uuid, code, body}\` with the same uuid. A
 * reply of 400 or more rejects with a SocketError. When the connection drops (not a refusal, which
 * closes with 4000 + the status), replies awaited are rejected and the client reconnects; sends
 * made meanwhile wait for the new connection.
 */
export function connectSocket(url: string, options: SocketOptions = {}): SocketClient {
  const Socket = options.WebSocket ?? (globalThis as { WebSocket?: new (url: string) => object }).WebSocket;
  if (Socket === undefined) throw new TypeError('no WebSocket class: pass options.WebSocket (the ws package in Node 20)');
  const attempts = options.reconnect?.attempts ?? 5;
  const delayMs = options.reconnect?.delayMs ?? defaultDelay;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const waiting = new Map<string, Waiting>();
  let sequence = 0;
  let attempt = 0;
  let closing = false;
  let socket: SocketLike;
  let connected: Promise<SocketLike>;

  const failAll = (error: SocketError) => {
    for (const entry of waiting.values()) {
      clearTimeout(entry.timer);
      entry.reject(error);
    }
    waiting.clear();
  };

  const open = (): Promise<SocketLike> => {
    const current = new Socket(url) as SocketLike;
    socket = current;
    const accepted = new Promise<SocketLike>((resolve, reject) => {
      current.onmessage = (event) => {
        let frame: ReplyFrame;
        try {
          frame = JSON.parse(String(event.data)) as ReplyFrame;
        } catch {
          return;
        }
        if (frame.uuid === undefined) {
          // The answer to CONNECT (a later frame without a uuid answers none of ours).
          if (frame.code < 400) {
            attempt = 0;
            resolve(current);
          }
          return;
        }
        const entry = waiting.get(frame.uuid);
        if (!entry) return;
        waiting.delete(frame.uuid);
        clearTimeout(entry.timer);
        if (frame.code >= 400) entry.reject(new SocketError(frame.code, frame.body, \`reply \${frame.code}\`));
        else entry.resolve(frame.body);
      };
      current.onerror = () => {};
      current.onclose = (event) => {
        const refused = event.code >= 4000 && event.code < 5000;
        const error = new SocketError(refused ? event.code - 4000 : 0, undefined, \`the connection closed (\${event.code})\`);
        reject(error);
        if (socket !== current) return;
        failAll(error);
        if (closing || refused || attempt >= attempts) {
          // Later sends fail at once rather than write to a closed socket.
          connected = Promise.reject(error);
          connected.catch(() => {});
          options.onClose?.(event.code, false);
          return;
        }
        attempt += 1;
        // Sends made from now on wait for the next connection.
        connected = new Promise<SocketLike>((resolve, reject) => {
          setTimeout(() => (closing ? reject(error) : resolve(open())), delayMs(attempt));
        });
        connected.catch(() => {});
        options.onClose?.(event.code, true);
      };
    });
    // Awaited by sends; a refusal nobody is waiting for is not an unhandled rejection.
    accepted.catch(() => {});
    return accepted;
  };

  connected = open();
  const ready = connected.then(() => undefined);
  // A refusal nobody awaits \`ready\` for is not an unhandled rejection; awaiting it still throws.
  ready.catch(() => {});

  const sendOne = async (operation: keyof OperationTypes, input: { params?: object; body?: unknown } = {}) => {
    const route = operationRoutes[operation];
    const target = await connected;
    sequence += 1;
    const uuid = String(sequence);
    const frame: Record<string, unknown> = {
      path: frameTarget(route.path, input.params as { path?: object; query?: object } | undefined),
      method: route.method,
      uuid,
    };
    if (input.body !== undefined) frame.body = input.body;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(uuid);
        reject(new SocketError(0, undefined, \`no reply within \${timeoutMs} ms\`));
      }, timeoutMs);
      waiting.set(uuid, { resolve, reject, timer });
      target.send(JSON.stringify(frame));
    });
  };

  const send = Object.fromEntries(
    Object.keys(operationRoutes).map((operation) => [
      operation,
      (input?: { params?: object; body?: unknown }) => sendOne(operation as keyof OperationTypes, input),
    ]),
  ) as unknown as SocketSenders;

  return {
    send,
    ready,
    close() {
      closing = true;
      socket.close(1000);
    },
  };
}
`;
