import type { FastifyRequest } from 'fastify';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function lowerUuids(values: unknown): void {
  if (typeof values !== 'object' || values === null) return;
  const record = values as Record<string, unknown>;
  for (const [name, value] of Object.entries(record)) {
    if (typeof value === 'string' && UUID.test(value)) record[name] = value.toLowerCase();
  }
}

/**
 * preValidation of every contract operation: UUIDs in the path and query are compared as text by
 * the services (a reservation's book, its owner), so `0B9E…` and `0b9e…` must name the same thing:
 * they are lower-cased, the canonical form the database returns.
 */
export function canonicaliseUuids(request: FastifyRequest): void {
  lowerUuids(request.params);
  lowerUuids(request.query);
}
