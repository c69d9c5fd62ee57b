import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isAdmin } from '../modules/users/user.js';

/** A signed-in ROLE_ADMIN, or a scraper presenting `Authorization: Bearer <METRICS_TOKEN>`. */
export function mayReadOperationalData(request: FastifyRequest, metricsToken: string | undefined): boolean {
  if (request.user !== null && isAdmin(request.user)) return true;
  if (metricsToken === undefined) return false;
  const presented = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (presented === undefined) return false;
  const left = Buffer.from(presented);
  const right = Buffer.from(metricsToken);
  return left.length === right.length && timingSafeEqual(left, right);
}
