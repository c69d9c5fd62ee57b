import { signedInUser } from '../../auth/signed-in-user.js';
import type { OperationRequest } from '../../http/operations.js';
import { pageMetadata, pageRequest } from '../../http/pagination.js';
import { PATHS } from '../../pages/paths.js';
import { displayName } from '../../pages/viewer.js';
import { parametersOf } from '../contract-rules.js';
import { auditBody } from '../views/audit.js';
import type { WebContext } from './context.js';

type AuditQuery = OperationRequest<'listAuditEvents'>['query'];

/** The admin's audit page: the API's GET /audit, with names and titles. */
export function auditRoutes({ page, books, audit, users, render }: WebContext): void {
  page<AuditQuery, unknown>({
    method: 'GET',
    url: PATHS.audit,
    access: 'listAuditEvents',
    query: parametersOf('listAuditEvents', 'query'),
    // The filter form sends "All kinds" as kind=.
    async beforeValidation(request) {
      const query = request.query as Record<string, unknown>;
      if (query.kind === '') delete query.kind;
    },
    async handler(request, reply, flash) {
      const user = signedInUser(request);
      const { bookId, userId, kind } = request.query;
      const paging = pageRequest({ ...request.query, sort: [] });
      const filter = {
        ...(bookId === undefined ? {} : { bookId }),
        ...(userId === undefined ? {} : { userId }),
        ...(kind === undefined ? {} : { kind }),
      };
      const { items, total } = await audit.list(filter, paging);
      const ids = new Set<string>();
      for (const event of items) {
        if (event.actorId !== null) ids.add(event.actorId);
        if (event.holderId !== null) ids.add(event.holderId);
      }
      const people = new Map((await users.findByIds([...ids])).map((u) => [u.id, displayName(u)]));
      const found = await books.getMany(
        user,
        items.map((event) => event.bookId),
      );
      const titles = new Map([...found].map(([id, book]) => [id, book.title]));
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries({ bookId, userId, kind })) {
        if (value !== undefined) query.set(name, value);
      }
      const body = auditBody({
        events: items,
        people,
        titles,
        kind,
        metadata: pageMetadata(paging, total),
        query,
      });
      return render(request, reply, { title: 'Audit log', current: PATHS.audit, flash, body });
    },
  });
}
