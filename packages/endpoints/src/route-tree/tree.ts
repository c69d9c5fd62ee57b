import { EndpointsError } from '../errors.js';
import { segmentVariations } from '../naming.js';
import type { Handler } from './handler.js';

/** Where a node's handlers come from: a module file (relative to the working directory) and an export. */
export interface RouteOrigin {
  readonly file: string;
  readonly exportName: string;
}

/**
 * A node of the routing tree: a module, a package or a class. Built once at startup; a request walks
 * it with one Map lookup per segment.
 */
export class RouteNode {
  /** Children by canonical (kebab-case) segment. */
  readonly children = new Map<string, RouteNode>();
  /** Children by every accepted spelling; filled by `finalize`. */
  readonly lookup = new Map<string, RouteNode>();
  handlers: Map<string, Handler> | null = null;
  /** Where the handlers came from (`users.ts#Default`), for conflict messages. */
  source = '';
  origin: RouteOrigin | null = null;
  /** `Allow` header value for 501 answers: the node's methods, sorted. */
  allow = '';
  /** Segments from the root to this node, so a walk knows how many it consumed without allocating. */
  depth = 0;

  child(segment: string): RouteNode {
    let node = this.children.get(segment);
    if (!node) {
      node = new RouteNode();
      this.children.set(segment, node);
    }
    return node;
  }

  /** Attaches a class's handlers; two sources for one path within a prefix is a startup error. */
  attach(handlers: Map<string, Handler>, origin: RouteOrigin): void {
    const source = `${origin.file}#${origin.exportName}`;
    if (this.handlers) {
      throw new EndpointsError(
        'DUPLICATE_ROUTE',
        `${source} and ${this.source} answer the same path; rename or remove one of them`,
      );
    }
    this.handlers = handlers;
    this.source = source;
    this.origin = origin;
  }
}

/**
 * Overlays `later` on `earlier`: where both define handlers for a path, the later prefix wins;
 * `shadowed` hears of each route given up that way.
 */
export function mergeTrees(
  earlier: RouteNode,
  later: RouteNode,
  shadowed: (lost: RouteOrigin, winner: RouteOrigin) => void = () => {},
): void {
  if (later.handlers) {
    if (earlier.origin && later.origin) shadowed(earlier.origin, later.origin);
    earlier.handlers = later.handlers;
    earlier.source = later.source;
    earlier.origin = later.origin;
  }
  for (const [segment, child] of later.children) mergeTrees(earlier.child(segment), child, shadowed);
}

/** Fills the spelling lookups, depths and `Allow` values once the tree is complete. */
export function finalize(node: RouteNode, depth = 0): void {
  node.depth = depth;
  node.lookup.clear();
  for (const [segment, child] of node.children) {
    for (const spelling of segmentVariations(segment)) node.lookup.set(spelling, child);
    finalize(child, depth + 1);
  }
  node.allow = node.handlers ? [...node.handlers.keys()].sort().join(', ') : '';
}

/**
 * Walks from the root as far as segments match and returns the node reached; it consumed
 * `node.depth` segments, and the rest are positional arguments.
 */
export function walk(root: RouteNode, segments: readonly string[]): RouteNode {
  let node = root;
  for (let index = 0; index < segments.length; index += 1) {
    const next = node.lookup.get(segments[index] as string);
    if (next === undefined) break;
    node = next;
  }
  return node;
}
