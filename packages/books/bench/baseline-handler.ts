import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { loadContract } from '../src/contract/document.js';
import type { Schemas } from '../src/contract/schemas.js';
import { pageRequest } from '../src/http/pagination.js';
import { BOOK_BY_ID_SQL, bookPageSql } from '../src/modules/books/books.repository.js';

/** Runs one parameterised statement; implemented over a pg pool or a PGlite instance. */
export type RunQuery = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

// The same statements the service's book repository runs for these two requests: the page with its
// total in one statement (default order: title, id tie-break), and one book by id, each with the caller's holds.
const bookSort = loadContract().components as {
  parameters: { BookSort: { schema: { default: Schemas['BookSortOrder'][] } } };
};
export const pageSql = bookPageSql(
  pageRequest({ page: 0, size: 20, sort: bookSort.parameters.BookSort.schema.default }).sort,
);
// The service's session lookup, reduced to what authorization needs: one primary-key probe joined with the user.
export const sessionSql =
  'select s.user_id, u.role from sessions s join users u on u.id = s.user_id where s.id_hash = $1 and s.expires_at > now()';

// The statements also say whether the caller holds each book; the baseline asks for nobody.
const NOBODY = '00000000-0000-0000-0000-000000000000';

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

function sessionCookie(req: IncomingMessage): string | undefined {
  return /(?:^|;\s*)JSESSIONID=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
}

/**
 * The baseline: the least code that answers the two benchmarked requests from the database, with
 * no framework, validation or links. With `sessionSecret` it first looks the session up as the
 * service stores it (HMAC of the cookie), which isolates what a session lookup costs.
 */
export function baselineHandler(run: RunQuery, options: { sessionSecret?: string | undefined } = {}) {
  const { sessionSecret } = options;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      if (sessionSecret !== undefined) {
        const id = sessionCookie(req) ?? '';
        const idHash = createHmac('sha256', sessionSecret).update(id).digest('base64url');
        const [session] = await run(sessionSql, [idHash]);
        if (!session) {
          send(res, 401, { error: 'no session' });
          return;
        }
      }
      const url = new URL(req.url ?? '/', 'http://baseline');
      if (url.pathname === '/books') {
        const size = Number(url.searchParams.get('size') ?? 20);
        const page = Number(url.searchParams.get('page') ?? 0);
        const rows = await run(pageSql, [size, page * size, NOBODY]);
        send(res, 200, { books: rows.filter((row) => row.id !== null), total: rows[0]?.total });
        return;
      }
      const id = /^\/books\/([0-9a-f-]{36})$/.exec(url.pathname)?.[1];
      if (id) {
        const [book] = await run(BOOK_BY_ID_SQL, [id, NOBODY]);
        send(res, book ? 200 : 404, book ?? { error: 'not found' });
        return;
      }
      send(res, 404, { error: 'not found' });
    } catch (error) {
      send(res, 500, { error: (error as Error).message });
    }
  };
}
