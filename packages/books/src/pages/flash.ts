import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Flash } from './layout.js';

/**
 * The message a form post leaves for the page it redirects to. It is kept in the session, on the
 * server, so nobody can plant one by setting a cookie; it is shown once and then removed.
 */
const FLASH = 'flash';

export function setFlash(request: FastifyRequest, reply: FastifyReply, flash: Flash): Promise<void> {
  return request.server.sessions.set(request, reply, FLASH, flash);
}

/** The pending message, if any, removed from the session as it is read. */
export async function takeFlash(request: FastifyRequest, reply: FastifyReply): Promise<Flash | undefined> {
  const flash = request.server.sessions.get<Flash | null>(request, FLASH);
  if (flash === undefined || flash === null) return undefined;
  await request.server.sessions.set(request, reply, FLASH, null);
  return flash;
}
