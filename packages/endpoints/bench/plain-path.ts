/**
 * What dispatch's plain path saves, without sockets: the benchmark's GET routes through the Node
 * interface twice, once as dispatch runs them (undecorated handlers on classes that override no
 * hook bind and call directly) and once with that path turned off (every handler through
 * `controller.handle()`, the documented lifecycle). Usage: `npx tsx bench/plain-path.ts`; prints the
 * lowest CPU nanoseconds per request of each, per route, and their ratio. It runs the TypeScript
 * sources (the flag it turns off is internal), so compare its figures with each other, not with
 * `bench/dispatch.ts`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller } from '../src/controller.js';
import { Dispatcher } from '../src/dispatch.js';
import { CallError } from '../src/errors.js';
import { nodeInterface } from '../src/interfaces/node.js';
import { classHandlers, type Handler } from '../src/route-tree/handler.js';
import { finalize, RouteNode } from '../src/route-tree/tree.js';
import { resolveSettings } from '../src/settings.js';

const CALLS_PER_BATCH = 200_000;
/** Batches of each kind, taken in turns so that drift on the shared machine hits both alike. */
const BATCHES = 7;
const WARMUP_BATCHES = 2;

// The benchmark's controllers (bench/controllers), here so that they extend this copy's Controller.
class Root extends Controller {
  GET() {
    return { hello: 'world' };
  }
}
class Users extends Controller {
  GET(userId: string, collection: string, postId: string) {
    if (collection !== 'posts') throw new CallError(404, `no collection ${collection}`);
    return { userId, postId };
  }
}
class Search extends Controller {
  static override types = { GET: { page: Number, size: Number } };

  GET({ q, page = 1, size = 20 }: { q: string; page?: number; size?: number }) {
    return { q, page, size };
  }
}

/** The three routes' tree; with `plain` false every handler takes the lifecycle. */
function tree(plain: boolean): RouteNode {
  const root = new RouteNode();
  const mount = (node: RouteNode, Class: typeof Controller, file: string) => {
    const handlers = classHandlers(Class, 'Default', file, undefined);
    const mounted = plain
      ? handlers
      : new Map(
          [...handlers].map(([method, handler]): [string, Handler] => [method, { ...handler, plain: false }]),
        );
    node.attach(mounted, { file, exportName: 'Default' });
  };
  mount(root, Root, 'index.ts');
  mount(root.child('users'), Users, 'users.ts');
  mount(root.child('search'), Search, 'search.ts');
  finalize(root);
  return root;
}

// The prefix is never read: the tree is built above, not discovered.
const settings = resolveSettings({ controllerPrefix: 'bench/controllers', env: {} });
const handlers = {
  plain: nodeInterface(new Dispatcher(tree(true), settings), settings.linger),
  lifecycle: nodeInterface(new Dispatcher(tree(false), settings), settings.linger),
};

/** 200 answers counted, so that a route the tree misses cannot pass for a fast one. */
let answers = 0;
let status = 0;
const discard = {
  headersSent: false,
  writeHead(code: number) {
    status = code;
    return this;
  },
  setHeader() {
    return this;
  },
  end() {
    if (status === 200) answers += 1;
    status = 0;
    return this;
  },
} as unknown as ServerResponse;

const cpuNanos = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
};

function batch(handle: (req: IncomingMessage, res: ServerResponse) => void, url: string): number {
  const started = cpuNanos();
  for (let call = 0; call < CALLS_PER_BATCH; call += 1) {
    const request = { method: 'GET', url, rawHeaders: ['Host', '127.0.0.1'], headers: { host: '127.0.0.1' } };
    handle(request as unknown as IncomingMessage, discard);
  }
  return (cpuNanos() - started) / CALLS_PER_BATCH;
}

for (const url of ['/', '/users/42/posts/7', '/search?q=books&page=2&size=10']) {
  const best = { plain: Number.POSITIVE_INFINITY, lifecycle: Number.POSITIVE_INFINITY };
  for (let round = 0; round < WARMUP_BATCHES + BATCHES; round += 1) {
    for (const kind of ['plain', 'lifecycle'] as const) {
      const nanos = batch(handlers[kind], url);
      if (round >= WARMUP_BATCHES) best[kind] = Math.min(best[kind], nanos);
    }
  }
  const ratio = best.lifecycle / best.plain;
  process.stdout.write(
    `GET ${url}: plain path ${best.plain.toFixed(0)} ns, lifecycle ${best.lifecycle.toFixed(0)} ns of CPU per request (lowest of ${BATCHES} batches); lifecycle/plain ${ratio.toFixed(2)}\n`,
  );
}
const expected = 3 * 2 * (WARMUP_BATCHES + BATCHES) * CALLS_PER_BATCH;
if (answers !== expected)
  throw new Error(`${answers} answers for ${expected} requests: some failed or did not finish`);
