import type { FastifyInstance } from 'fastify';

interface RoutePattern {
  pattern: RegExp;
  methods: Set<string>;
}

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** `/books/:id` → `^/books/[^/]+$`; a trailing `*` (static files) matches the rest of the path. */
function patternOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) return '[^/]+';
      if (segment === '*') return '.*';
      return escapeRegExp(segment);
    })
    .join('/');
  return new RegExp(`^${source}$`);
}

/**
 * The methods each registered path answers, so a request for a known path with another method gets
 * 405 with `Allow` (as Spring MVC answers) instead of 404. Records routes through `onRoute`, so it must
 * be attached before any route is registered.
 */
export class AllowedMethods {
  private readonly routes = new Map<string, RoutePattern>();

  attach(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      let entry = this.routes.get(route.url);
      if (entry === undefined) {
        entry = { pattern: patternOf(route.url), methods: new Set() };
        this.routes.set(route.url, entry);
      }
      for (const method of methods) entry.methods.add(method.toUpperCase());
    });
  }

  /** The methods some route answers for this concrete path, sorted; empty for an unknown path. */
  for(path: string): string[] {
    const methods = new Set<string>();
    for (const { pattern, methods: routeMethods } of this.routes.values()) {
      if (pattern.test(path)) for (const method of routeMethods) methods.add(method);
    }
    if (methods.size > 0) methods.add('OPTIONS');
    return [...methods].sort();
  }
}
