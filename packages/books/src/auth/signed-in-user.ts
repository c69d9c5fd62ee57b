import type { FastifyRequest } from 'fastify';
import type { User } from '../modules/users/user.js';

/** The signed-in user of a guarded operation (the contract guard has already answered 401 without one). */
export function signedInUser(request: FastifyRequest): User {
  if (request.user === null) throw new Error('guarded operation reached without a signed-in user');
  return request.user;
}
