import { type Decorator, decorate } from './decorate.js';

/** `Cache-Control: max-age=<seconds>` on the handler's responses (the reference's `@httpcache`). */
export function httpCache(seconds: number): Decorator {
  if (!Number.isInteger(seconds) || seconds < 0) {
    throw new RangeError(`httpCache needs a whole number of seconds ≥ 0, got ${seconds}`);
  }
  return decorate({
    name: 'httpCache',
    before(controller) {
      controller.response.headers.set('cache-control', `max-age=${seconds}`);
    },
  });
}

/** Forbids caching: `Cache-Control: no-cache, no-store, must-revalidate`, `Pragma: no-cache`, `Expires: 0`. */
export function noHttpCache(): Decorator {
  return decorate({
    name: 'noHttpCache',
    before(controller) {
      const headers = controller.response.headers;
      headers.set('cache-control', 'no-cache, no-store, must-revalidate');
      headers.set('pragma', 'no-cache');
      headers.set('expires', '0');
    },
  });
}
