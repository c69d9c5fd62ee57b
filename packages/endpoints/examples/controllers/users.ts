import { CallError, Controller } from '../../src/index.js';

interface User {
  id: number;
  name: string;
}

const users = new Map<number, User>([
  [1, { id: 1, name: 'Ada' }],
  [2, { id: 2, name: 'Grace' }],
]);

/**
 * `GET /users` lists users (`?limit=1`), `GET /users/1` shows one, `POST /users` creates one from a
 * JSON or form body with a `name` field (201), `DELETE /users/1` removes one (204).
 */
export class Default extends Controller {
  static override types = { GET: { id: Number, limit: Number }, DELETE: { id: Number } };

  /** Lists users, at most `limit` of them, or shows the one with the given id. */
  GET(id: number | undefined = undefined, { limit = 100 }: { limit?: number } = {}) {
    if (id === undefined) return [...users.values()].slice(0, limit);
    const user = users.get(id);
    if (!user) throw new CallError(404, `user ${id} does not exist`);
    return user;
  }

  /** Creates a user from a JSON or form body with a `name` field; answers 201 with a Location. */
  POST({ name }: { name: string }) {
    const id = Math.max(0, ...users.keys()) + 1;
    const user = { id, name };
    users.set(id, user);
    this.response.code = 201;
    this.response.headers.set('location', `/users/${id}`);
    return user;
  }

  /** Removes a user; answers 204, or 404 when there is no such user. */
  DELETE(id: number) {
    if (!users.delete(id)) throw new CallError(404, `user ${id} does not exist`);
  }
}
