import type { FastifyRequest } from 'fastify';
import { maskCsrfToken } from '../auth/csrf.js';
import { isAdmin, type User } from '../modules/users/user.js';
import type { Viewer } from './layout.js';

/** The name a page shows for a user: their name, else their email, else their id. */
export const displayName = (user: Pick<User, 'name' | 'email' | 'id'>) => user.name ?? user.email ?? user.id;

// One masked token per response: every form of a page carries the same one.
const viewers = new WeakMap<FastifyRequest, Viewer>();

/** The signed-in viewer of a page (with a CSRF token masked for this response), or undefined. */
export function viewerOf(request: FastifyRequest): Viewer | undefined {
  const user = request.user;
  if (user === null) return undefined;
  let viewer = viewers.get(request);
  if (viewer === undefined) {
    viewer = { name: displayName(user), admin: isAdmin(user), csrf: maskCsrfToken(request.csrfToken) };
    viewers.set(request, viewer);
  }
  return viewer;
}
