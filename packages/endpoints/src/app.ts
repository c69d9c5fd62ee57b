import type { RequestListener } from 'node:http';
import { type AsyncApiDocument, asyncapiDocument } from './asyncapi/document.js';
import { Controller } from './controller.js';
import { discover } from './discovery/discover.js';
import type { SkippedEntry } from './discovery/report.js';
import { Dispatcher } from './dispatch.js';
import { EndpointsError } from './errors.js';
import { type ClientErrorListener, clientErrorInterface } from './interfaces/client-error.js';
import { type FetchHandler, fetchInterface } from './interfaces/fetch.js';
import { nodeInterface } from './interfaces/node.js';
import { type UpgradeListener, websocketInterface } from './interfaces/websocket.js';
import { type OpenApiDocument, type OpenApiOptions, openapiDocument, routeRef } from './openapi/document.js';
import { listRoutes, type Route } from './route-listing/list.js';
import { formatRouteTable, type RouteTable, routeTable } from './route-listing/table.js';
import { classHandlers, type Handler } from './route-tree/handler.js';
import { finalize, type RouteNode } from './route-tree/tree.js';
import { type AppOptions, resolveSettings, type Settings } from './settings.js';
import { extractTypes, type TypeExtraction } from './types/extract.js';
import { messageCheck } from './validation/messages.js';
import { responseCheck } from './validation/responses.js';
import { operationChecks, SchemaCompiler } from './validation/validators.js';

/** An application: one routing tree, served through either interface. */
export interface App {
  /** `fetch(request) → Response`, the ASGI counterpart (srvx, @hono/node-server, Deno.serve, Bun.serve). */
  readonly fetch: FetchHandler;
  /** `(req, res)` for node:http, Express and Connect, the WSGI counterpart. */
  readonly handle: RequestListener;
  /** Same function as `handle`, named for `http.createServer(app.listener)`. */
  readonly listener: RequestListener;
  /** WebSockets: `server.on('upgrade', app.upgrade)` on any node:http server (see the README). */
  readonly upgrade: UpgradeListener;
  /**
   * Answers what Node's parser refuses (431, 400, …) and closes with the lingering close of the
   * app's early answers: `server.on('clientError', app.clientError)` (the CLI attaches it).
   */
  readonly clientError: ClientErrorListener;
  readonly settings: Settings;
  /** The routing tree, built once at startup. */
  readonly routes: RouteNode;
  /** Files and exports under the prefixes that were not mounted, with the reason. */
  readonly skipped: readonly SkippedEntry[];
  /** The OpenAPI 3.1 document of every route (the served document itself excluded). */
  openapi(options?: OpenApiOptions): OpenApiDocument;
  /** The AsyncAPI 3.0 document of the WebSocket controllers (classes with CONNECT or DISCONNECT). */
  asyncapi(options?: OpenApiOptions): AsyncApiDocument;
  /** Every route and everything not mounted, as `endpoints routes` prints it. */
  routeTable(): RouteTable;
}

/**
 * Serves `document` at `path` through the ordinary pipeline, so it answers like any controller (and
 * other methods get 501). A controller already on that path is a startup error.
 */
function mountDocument(root: RouteNode, path: string, document: OpenApiDocument): void {
  const segments = path.split('/').filter(Boolean);
  if (segments.length === 0) {
    throw new EndpointsError('INVALID_OPTION', `openapi.path must name a path below /, got '${path}'`);
  }
  class OpenApiDocumentController extends Controller {
    GET() {
      return document;
    }
  }
  let node = root;
  for (const segment of segments) node = node.child(segment);
  const origin = { file: '(openapi option)', exportName: 'OpenApiDocument' };
  node.attach(classHandlers(OpenApiDocumentController, origin.exportName, origin.file, undefined), origin);
  finalize(root);
}

/**
 * Builds an application: resolves the prefixes, imports every controller module under them once
 * (an import error fails here, naming the file), and merges their trees, the later prefix winning.
 * With `debug`, the route table is logged; with `openapi.path`, the document is served there.
 */
export async function createApp(options: AppOptions = {}): Promise<App> {
  const settings = resolveSettings(options);
  const { root, report } = await discover(settings.prefixes, settings.cwd, { survey: false });
  const applicationRoutes = listRoutes(root);
  const extractions = new Map<string, TypeExtraction>();
  // Read once per project (the compiler is the slow part), warnings logged then.
  const typesOf = (project: string) => {
    let types = extractions.get(project);
    if (types === undefined) {
      types = extractTypes(
        applicationRoutes.map((route) => routeRef(route, settings.cwd)),
        { project, cwd: settings.cwd, reservedNames: ['Error'] },
      );
      for (const warning of types.warnings) settings.log(`endpoints types: ${warning}`);
      extractions.set(project, types);
    }
    return types;
  };
  /**
   * The checks of `responseValidation` and `messageValidation`: each handler's documented schemas
   * (the first operation documenting it), compiled once at startup. Null when both are off.
   */
  const validationChecks = (project: string) => {
    if (settings.responseValidation === 'off' && !settings.messageValidation) return null;
    const operations = new Map<Handler, Record<string, unknown>>();
    const document = openapiDocument(
      applicationRoutes,
      settings.openapi,
      settings.cwd,
      typesOf(project),
      (route, operation) => {
        if (!operations.has(route.handler)) operations.set(route.handler, operation);
      },
    );
    const compiler = new SchemaCompiler(
      (document.components as { schemas: Record<string, Record<string, unknown>> }).schemas,
    );
    const byHandler = new Map(
      [...operations].map(([handler, operation]) => [handler, operationChecks(compiler, operation)]),
    );
    return { compiler, byHandler };
  };
  const openapi = (openapiOptions: OpenApiOptions = {}) => {
    const options = { ...settings.openapi, ...openapiOptions };
    const project = options.project ?? settings.project;
    return openapiDocument(applicationRoutes, options, settings.cwd, project ? typesOf(project) : undefined);
  };
  const table = () => routeTable(applicationRoutes, report.skipped);
  if (settings.openapi.path !== undefined) mountDocument(root, settings.openapi.path, openapi());
  if (settings.debug) settings.log(formatRouteTable(table()).trimEnd());
  const checks = settings.project === undefined ? null : validationChecks(settings.project);
  const dispatcher = new Dispatcher(
    root,
    settings,
    checks && settings.responseValidation !== 'off'
      ? responseCheck(settings.responseValidation, checks.byHandler, settings.log)
      : null,
  );
  const messages =
    checks && settings.messageValidation
      ? messageCheck(checks.compiler, checks.byHandler, (method, path) => dispatcher.handlerFor(method, path))
      : null;
  const handle = nodeInterface(dispatcher, settings.linger);
  return {
    fetch: fetchInterface(dispatcher, settings.linger),
    handle,
    listener: handle,
    upgrade: websocketInterface(dispatcher, settings, messages),
    clientError: clientErrorInterface(settings.linger),
    settings,
    routes: root,
    get skipped() {
      return report.skipped;
    },
    openapi,
    asyncapi: (options: OpenApiOptions = {}) => asyncapiDocument(applicationRoutes, openapi(options)),
    routeTable: table,
  };
}

/**
 * The route table without starting an application: import errors and duplicate routes are reported
 * as skipped entries instead of failing.
 */
export async function surveyRoutes(options: AppOptions = {}): Promise<RouteTable> {
  const settings = resolveSettings(options);
  const { root, report } = await discover(settings.prefixes, settings.cwd, { survey: true });
  return routeTable(listRoutes(root), report.skipped);
}

export type { Route };
