import type { RequestListener } from 'node:http';
import { loadPrefix } from './discovery/load.js';
import { resolvePrefix } from './discovery/prefix.js';
import { Dispatcher } from './dispatch.js';
import { type FetchHandler, fetchInterface } from './interfaces/fetch.js';
import { nodeInterface } from './interfaces/node.js';
import { finalize, mergeTrees, RouteNode } from './routing/tree.js';
import { type AppOptions, resolveSettings, type Settings } from './settings.js';

/** An application: one routing tree, served through either interface. */
export interface App {
  /** `fetch(request) → Response`, the ASGI counterpart (srvx, @hono/node-server, Deno.serve, Bun.serve). */
  readonly fetch: FetchHandler;
  /** `(req, res)` for node:http, Express and Connect, the WSGI counterpart. */
  readonly handle: RequestListener;
  /** Same function as `handle`, named for `http.createServer(app.listener)`. */
  readonly listener: RequestListener;
  readonly settings: Settings;
  /** The routing tree, built once at startup. */
  readonly routes: RouteNode;
}

/**
 * Builds an application: resolves the prefixes, imports every controller module under them once
 * (an import error fails here, naming the file), and merges their trees, the later prefix winning.
 */
export async function createApp(options: AppOptions = {}): Promise<App> {
  const settings = resolveSettings(options);
  const prefixes = settings.prefixes.map((prefix) => resolvePrefix(prefix, settings.cwd));
  const trees = await Promise.all(prefixes.map((prefix) => loadPrefix(prefix, settings.cwd)));
  const routes = new RouteNode();
  for (const tree of trees) mergeTrees(routes, tree);
  finalize(routes);
  const dispatcher = new Dispatcher(routes, settings);
  const handle = nodeInterface(dispatcher);
  return { fetch: fetchInterface(dispatcher), handle, listener: handle, settings, routes };
}
