import { CallError, Controller } from '@platform/endpoints';

/**
 * `GET /users/42/posts/7`: the two ids arrive as positionals around the literal `posts` segment.
 * `POST /users` with a JSON body `{"name":"Lin","age":30}`: its fields arrive as keywords, `age` cast.
 */
export class Default extends Controller {
  static override types = { POST: { age: Number } };

  GET(userId: string, collection: string, postId: string) {
    if (collection !== 'posts') throw new CallError(404, `no collection ${collection}`);
    return { userId, postId };
  }

  POST({ name, age }: { name: string; age: number }) {
    return { name, age };
  }
}
