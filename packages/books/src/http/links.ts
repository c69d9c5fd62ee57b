import type { FastifyRequest } from 'fastify';

export interface Link {
  href: string;
}

/**
 * The absolute origin (and path prefix) links are built on: PUBLIC_BASE_URL when set; otherwise the
 * request's own scheme and host, which fastify takes from X-Forwarded-Proto/-Host only when TRUST_PROXY is on.
 */
export function baseUrlOf(request: FastifyRequest, publicBaseUrl: string | undefined): string {
  if (publicBaseUrl !== undefined) return publicBaseUrl;
  return `${request.protocol}://${request.host}`;
}

export function link(base: string, path: string, query?: URLSearchParams): Link {
  const search = query === undefined || query.size === 0 ? '' : `?${query.toString()}`;
  return { href: `${base}${path}${search}` };
}
