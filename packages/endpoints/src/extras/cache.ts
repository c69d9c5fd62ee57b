import { runBefore } from './decorate.js';

/** `Cache-Control: max-age=<seconds>` on the handler's responses (the reference's `@httpcache`). */
export function httpCache(seconds: number) {
  if (!Number.isInteger(seconds) || seconds < 0) {
    throw new RangeError(`httpCache needs a whole number of seconds ≥ 0, got ${seconds}`);
  }
  return runBefore((controller) => {
    controller.response.headers.set('cache-control', `max-age=${seconds}`);
  });
}

/** Forbids caching: `Cache-Control: no-cache, no-store, must-revalidate`, `Pragma: no-cache`, `Expires: 0`. */
export function noHttpCache() {
  return runBefore((controller) => {
    const headers = controller.response.headers;
    headers.set('cache-control', 'no-cache, no-store, must-revalidate');
    headers.set('pragma', 'no-cache');
    headers.set('expires', '0');
  });
}
