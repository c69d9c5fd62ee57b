import { CallError, Controller } from '../../src/index.js';

/** `GET /users/42/posts/7`: the two ids arrive as positionals around the literal `posts` segment. */
export class Default extends Controller {
  GET(userId: string, collection: string, postId: string) {
    if (collection !== 'posts') throw new CallError(404, `no collection ${collection}`);
    return { userId, postId };
  }
}
