import type { FastifyReply, FastifyRequest } from 'fastify';
import { signedInUser } from '../../auth/signed-in-user.js';
import type { OperationRequest } from '../../http/operations.js';
import { pageMetadata, pageRequest } from '../../http/pagination.js';
import { transitionsFor } from '../../modules/reservations/reservation.js';
import { redirectWithFlash } from '../../pages/forms.js';
import type { Flash } from '../../pages/layout.js';
import { PATHS } from '../../pages/paths.js';
import { parametersOf } from '../contract-rules.js';
import type { PageRoute } from '../page-route.js';
import { bookBody } from '../views/book.js';
import { homeBody } from '../views/home.js';
import type { WebContext } from './context.js';

type ListQuery = OperationRequest<'listBooks'>['query'];

/** A GET form sends an empty search box as `q=`: that is no search, not an invalid one. */
async function dropEmptySearch(request: FastifyRequest): Promise<void> {
  const query = request.query as { q?: unknown };
  if (typeof query.q === 'string' && query.q.trim() === '') delete query.q;
}

/** The home page, a book's page, and reserving from it. */
export function catalogueRoutes({ page, books, reservations, render }: WebContext): void {
  page<ListQuery, unknown>({
    method: 'GET',
    url: PATHS.home,
    access: 'listBooks',
    query: parametersOf('listBooks', 'query'),
    beforeValidation: dropEmptySearch,
    async handler(request, reply, flash) {
      const user = signedInUser(request);
      const paging = pageRequest(request.query);
      const { items, total } = await books.list(user, paging, request.query.q);
      const body = homeBody({
        books: items,
        metadata: pageMetadata(paging, total),
        q: request.query.q,
        sort: request.query.sort ?? [],
        size: paging.size,
      });
      return render(request, reply, { title: 'Books', current: PATHS.home, flash, body });
    },
  });

  page<unknown, { id: string }>({
    method: 'GET',
    url: '/web/books/:id',
    access: 'getBook',
    params: parametersOf('getBook', 'path'),
    async handler(request, reply, flash) {
      const user = signedInUser(request);
      const book = await books.get(user, request.params.id);
      const { items } = await reservations.list(
        user,
        { userId: user.id, bookId: book.id },
        { page: 0, size: 1, sort: [{ property: 'reservedAt', direction: 'desc' }] },
      );
      const reservation = items[0];
      const viewer = render.viewer(request);
      const transitions = reservation === undefined ? [] : transitionsFor(user, reservation);
      const body = bookBody({ viewer, book, reservation, transitions });
      return render(request, reply, { title: book.title, flash, body });
    },
  });

  page<unknown, { bookId: string }>({
    method: 'POST',
    url: '/web/books/:bookId/reserve',
    access: 'createReservation',
    params: parametersOf('createReservation', 'path'),
    async handler(request, reply) {
      const reservation = await reservations.reserve(signedInUser(request), request.params.bookId);
      const flash: Flash =
        reservation.status === 'READY'
          ? { kind: 'success', text: 'Reserved: a copy is held for you. See the pickup deadline below.' }
          : {
              kind: 'success',
              text: `You joined the waiting list: you are number ${reservation.queuePosition} in the queue.`,
            };
      return redirectWithFlash(request, reply as FastifyReply, flash, PATHS.book(request.params.bookId));
    },
  } satisfies PageRoute<unknown, { bookId: string }>);
}
