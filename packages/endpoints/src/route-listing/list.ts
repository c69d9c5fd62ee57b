import type { Cast } from '../binding/casts.js';
import type { Handler } from '../route-tree/handler.js';
import type { RouteNode } from '../route-tree/tree.js';

/** A handler parameter as clients see it: a path segment, or a keyword (query or body). */
export interface RouteParameter {
  readonly name: string;
  readonly required: boolean;
  /** Whether `default` holds the default written in the handler (only JSON literals are known). */
  readonly hasDefault: boolean;
  readonly default?: unknown;
  /** The cast or schema from `static types`, if any. */
  readonly cast: Cast | undefined;
}

/** One handler at one class path: what the route table prints and the OpenAPI document describes. */
export interface Route {
  readonly method: string;
  /** Canonical segments of the class path (modules, then the class), without positionals. */
  readonly segments: readonly string[];
  readonly file: string;
  readonly exportName: string;
  readonly handler: Handler;
  /** Positional parameters, which are path segments after the class path. */
  readonly positionals: readonly RouteParameter[];
  /** How many positionals are required; the others give the shorter paths too. */
  readonly minPositionals: number;
  /** Whether further segments are taken by a rest parameter. */
  readonly rest: boolean;
  readonly keywords: readonly RouteParameter[];
  /** Whether unknown keywords are collected (`...rest` in the keyword object). */
  readonly keywordRest: boolean;
}

/** Keywords travel in the query string for these methods, in the body for the others. */
const QUERY_METHODS = new Set(['GET', 'DELETE', 'HEAD']);

export function keywordPlace(method: string): 'query' | 'body' {
  return QUERY_METHODS.has(method) ? 'query' : 'body';
}

/**
 * Positional names for one class path, by position: the first handler (in method order) that names
 * the position decides, so `GET(id)` and `DELETE(userId)` share one path, `/users/{id}`.
 */
function positionalNames(handlers: readonly Handler[]): string[] {
  const names: string[] = [];
  for (const handler of handlers) {
    handler.plan.signature.positionals.forEach((param, index) => {
      if (names[index] === undefined && param.name !== null) names[index] = param.name;
    });
  }
  return names;
}

function describeHandler(
  handler: Handler,
  segments: readonly string[],
  node: RouteNode,
  names: string[],
): Route {
  const { signature, minPositionals } = handler.plan;
  const casts = handler.Class.types?.[handler.method] ?? {};
  const castOf = (name: string | null) =>
    name !== null && Object.hasOwn(casts, name) ? casts[name] : undefined;
  const positionals = signature.positionals.map((param, index) => ({
    name: names[index] ?? `arg${index + 1}`,
    required: index < minPositionals,
    hasDefault: Object.hasOwn(param, 'default'),
    default: param.default,
    cast: castOf(param.name),
  }));
  const keywordSpec = signature.keywords;
  const keywords = keywordSpec
    ? [...keywordSpec.names].map(([name, required]) => ({
        name,
        required,
        hasDefault: keywordSpec.defaults.has(name),
        default: keywordSpec.defaults.get(name),
        cast: castOf(name),
      }))
    : [];
  return {
    method: handler.method,
    segments,
    file: node.origin?.file ?? '',
    exportName: node.origin?.exportName ?? '',
    handler,
    positionals,
    minPositionals,
    rest: signature.rest,
    keywords,
    keywordRest: keywordSpec?.rest ?? false,
  };
}

/**
 * Every handler in the tree, by path (segments in order) then method. The CORS preflight the
 * framework adds is not a handler of the application and is left out.
 */
export function listRoutes(root: RouteNode): Route[] {
  const routes: Route[] = [];
  const visit = (node: RouteNode, segments: string[]) => {
    if (node.handlers) {
      const handlers = [...node.handlers.values()]
        .filter((handler) => !handler.preflight)
        .sort((a, b) => a.method.localeCompare(b.method));
      const names = positionalNames(handlers);
      for (const handler of handlers) routes.push(describeHandler(handler, segments, node, names));
    }
    for (const segment of [...node.children.keys()].sort()) {
      visit(node.children.get(segment) as RouteNode, [...segments, segment]);
    }
  };
  visit(root, []);
  return routes;
}
