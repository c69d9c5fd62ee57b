/** What every contender answers, so they all do the same work per request. */
export const HELLO = { hello: 'world' };
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The query of the third route as numbers, or undefined when `page` or `size` is not one: what
 * the contenders without casts of their own do by hand (ours declares `static types`, fastify a
 * querystring schema).
 */
export function searchAnswer(
  q: string | undefined,
  page: string | undefined,
  size: string | undefined,
): { q: string; page: number; size: number } | undefined {
  const pageNumber = page === undefined ? 1 : Number(page);
  const sizeNumber = size === undefined ? 20 : Number(size);
  if (q === undefined || !Number.isFinite(pageNumber) || !Number.isFinite(sizeNumber)) return undefined;
  return { q, page: pageNumber, size: sizeNumber };
}

/** The fourth route's JSON body checked by hand, or undefined when it is not `{ name, age }`. */
export function userAnswer(body: unknown): { name: string; age: number } | undefined {
  const { name, age } = (body ?? {}) as { name?: unknown; age?: unknown };
  if (typeof name !== 'string' || typeof age !== 'number') return undefined;
  return { name, age };
}
