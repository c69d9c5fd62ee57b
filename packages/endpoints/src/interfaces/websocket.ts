import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import type { Dispatcher } from '../dispatch.js';
import { bodyTooLarge, type Exchange } from '../http/exchange.js';
import { type Outcome, PendingOutcome } from '../http/outcome.js';
import { isJsonType } from '../media-type.js';
import type { Settings } from '../settings.js';
import type { MessageCheck } from '../validation/messages.js';

/** One frame a client sends: a request to dispatch like an HTTP request. */
interface RequestFrame {
  path: string;
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  uuid?: string;
}

/** One frame the server sends back. */
interface ReplyFrame {
  path?: string;
  uuid?: string;
  code: number;
  body?: unknown;
}

/** A request carried by a socket: the upgrade request's headers, then the frame's own. */
class SocketExchange implements Exchange {
  readonly method: string;
  readonly target: string;
  readonly remoteAddress: string | undefined;
  readonly onConnection = true;
  readonly #headers: Headers;
  readonly #origin: string;
  readonly #body: Uint8Array | null;

  constructor(upgrade: IncomingMessage, method: string, target: string, frame?: RequestFrame) {
    this.method = method;
    this.target = target.startsWith('/') ? target : `/${target}`;
    this.remoteAddress = upgrade.socket.remoteAddress;
    const headers = new Headers();
    const raw = upgrade.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
    for (const [name, value] of Object.entries(frame?.headers ?? {})) headers.set(name, String(value));
    const scheme = (upgrade.socket as TLSSocket).encrypted ? 'https' : 'http';
    this.#origin = `${scheme}://${upgrade.headers.host ?? 'localhost'}`;
    if (frame?.body === undefined) {
      this.#body = null;
    } else {
      this.#body = Buffer.from(JSON.stringify(frame.body));
      headers.set('content-type', 'application/json');
    }
    this.#headers = headers;
  }

  header(name: string): string | undefined {
    return this.#headers.get(name) ?? undefined;
  }

  headers(): Headers {
    return this.#headers;
  }

  origin(): string {
    return this.#origin;
  }

  protocol(): string {
    return 'HTTP/1.1';
  }

  hasBody(): boolean {
    return this.#body !== null;
  }

  readBody(limit: number, received: (body: Uint8Array) => void, failed: (error: unknown) => void): void {
    const body = this.#body ?? new Uint8Array(0);
    if (body.byteLength > limit) failed(bodyTooLarge(limit));
    else received(body);
  }

  /** A frame arrives whole; there is nothing left to stop reading. */
  abandonBody(): void {}
}

/** An outcome as a reply frame's body: JSON decoded, text as text, bytes as UTF-8 text. */
async function replyBody(outcome: Outcome): Promise<unknown> {
  if (outcome.passThrough) return outcome.passThrough.text();
  const body = outcome.body;
  if (body === null) return undefined;
  if (typeof body === 'string') return isJsonType(outcome.contentType) ? JSON.parse(body) : body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  throw new Error('a streamed response cannot be sent over a WebSocket');
}

function parseFrame(data: RawData, binary: boolean): RequestFrame {
  if (binary) throw new Error('frames must be text: JSON {path, method, body, headers, uuid}');
  let frame: unknown;
  try {
    frame = JSON.parse(data.toString());
  } catch (error) {
    throw new Error(`frames must be JSON: ${(error as Error).message}`);
  }
  if (typeof frame !== 'object' || frame === null || typeof (frame as RequestFrame).path !== 'string') {
    throw new Error('a frame needs a "path" string');
  }
  return frame as RequestFrame;
}

export type UpgradeListener = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * The reference's WebSocket interface (ASGI `handle_websocket`), on the `ws` library:
 * - connecting to a controller path runs its `CONNECT`; success sends `{path, code}`; a failure
 *   closes with 4000 + the status (a class without CONNECT: 4501);
 * - each text frame `{path, method, body, headers, uuid}` is dispatched like an HTTP request through
 *   the same routing, lifecycle and rendering, and answered with `{path, uuid, code, body}`;
 * - closing runs `DISCONNECT`.
 * Frames larger than `websocketMessageLimit` close the socket (1009); past `websocketConnections`
 * open sockets, an upgrade is refused with 503. With `messageValidation`, `check` refuses a frame
 * that does not match its schema with a 400 reply frame, and the socket stays open.
 */
export function websocketInterface(
  dispatcher: Dispatcher,
  settings: Settings,
  check: MessageCheck | null = null,
): UpgradeListener {
  // Loaded on the first upgrade: importing ws costs a noticeable share of startup, and most
  // applications never see an upgrade.
  let server: Promise<WebSocketServer> | undefined;
  const websocketServer = () => {
    server ??= import('ws').then(
      ({ WebSocketServer }) =>
        new WebSocketServer({ noServer: true, maxPayload: settings.websocketMessageLimit }),
    );
    return server;
  };
  let open = 0;

  const run = async (upgrade: IncomingMessage, method: string, target: string, frame?: RequestFrame) => {
    const outcome = dispatcher.dispatch(new SocketExchange(upgrade, method, target, frame));
    return outcome instanceof PendingOutcome ? outcome.promise() : outcome;
  };

  const serve = (socket: WebSocket, upgrade: IncomingMessage) => {
    const path = upgrade.url ?? '/';
    const send = (reply: ReplyFrame) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(reply));
    };
    const connected = run(upgrade, 'CONNECT', path).then(async (outcome) => {
      if (outcome.status >= 400) {
        socket.close(4000 + outcome.status, String(await replyBody(outcome).catch(() => '')).slice(0, 120));
        return false;
      }
      send({ path, code: outcome.status, body: await replyBody(outcome) });
      return true;
    });
    socket.on('message', (data, binary) => {
      void connected.then(async (ready) => {
        if (!ready) return;
        let frame: RequestFrame;
        try {
          frame = parseFrame(data, binary);
        } catch (error) {
          send({ code: 400, body: (error as Error).message });
          return;
        }
        const refused = check === null ? null : check(frame);
        if (refused !== null) {
          send({ path: frame.path, uuid: frame.uuid, code: 400, body: refused });
          return;
        }
        const outcome = await run(upgrade, (frame.method ?? 'GET').toUpperCase(), frame.path, frame);
        let body: unknown;
        try {
          body = await replyBody(outcome);
        } catch (error) {
          send({ path: frame.path, uuid: frame.uuid, code: 500, body: (error as Error).message });
          return;
        }
        send({ path: frame.path, uuid: frame.uuid, code: outcome.status, body });
      });
    });
    open += 1;
    socket.on('close', () => {
      open -= 1;
      void connected.then((ready) => {
        if (ready) return run(upgrade, 'DISCONNECT', path);
      });
    });
    socket.on('error', () => {});
  };

  return (req, socket, head) => {
    if (open >= settings.websocketConnections) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    websocketServer().then(
      (upgrader) => upgrader.handleUpgrade(req, socket, head, (ws) => serve(ws, req)),
      () => socket.destroy(),
    );
  };
}
