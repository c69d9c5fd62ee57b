import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'JSESSIONID';
export const CSRF_COOKIE = 'XSRF-TOKEN';
export const CSRF_HEADER = 'x-xsrf-token';

/** Secure when the service is reached over https: by PUBLIC_BASE_URL, or the request (proxy-aware with TRUST_PROXY). */
export function isHttps(request: FastifyRequest, publicBaseUrl: string | undefined): boolean {
  if (publicBaseUrl !== undefined) return publicBaseUrl.startsWith('https:');
  return request.protocol === 'https';
}

export function cookieOptions(
  request: FastifyRequest,
  publicBaseUrl: string | undefined,
  httpOnly: boolean,
): CookieSerializeOptions {
  return { path: '/', httpOnly, sameSite: 'lax', secure: isHttps(request, publicBaseUrl) };
}
