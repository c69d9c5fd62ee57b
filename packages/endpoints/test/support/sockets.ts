import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import type { App } from '../../src/index.js';

export interface Reply {
  path?: string;
  uuid?: string;
  code: number;
  body?: unknown;
}

/** A ws client that queues the frames it receives, so none is missed between awaits. */
export class Client {
  readonly socket: WebSocket;
  readonly #frames: Reply[] = [];
  readonly #waiting: ((frame: Reply) => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.socket = new WebSocket(url, { headers });
    this.socket.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as Reply;
      const waiter = this.#waiting.shift();
      if (waiter) waiter(frame);
      else this.#frames.push(frame);
    });
    this.closed = new Promise((resolve) => {
      this.socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    this.socket.on('error', () => {});
  }

  next(): Promise<Reply> {
    const frame = this.#frames.shift();
    if (frame) return Promise.resolve(frame);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  send(frame: unknown): Promise<Reply> {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    return this.next();
  }
}

export async function serveApp(app: App): Promise<{ server: Server; url: string }> {
  const server = createServer(app.listener);
  server.on('upgrade', app.upgrade);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
