import { signedInUser } from '../../auth/signed-in-user.js';
import type { OperationRequest } from '../../http/operations.js';
import { pageMetadata, pageRequest } from '../../http/pagination.js';
import type { Book } from '../../modules/books/book.js';
import type { Reservation, Transition } from '../../modules/reservations/reservation.js';
import { transitionsFor } from '../../modules/reservations/reservation.js';
import type { User } from '../../modules/users/user.js';
import { redirectWithFlash } from '../../pages/forms.js';
import { PATHS } from '../../pages/paths.js';
import { displayName } from '../../pages/viewer.js';
import { optionalParameter, parametersOf } from '../contract-rules.js';
import {
  adminReservationsBody,
  myReservationsBody,
  overdueLoansBody,
  type ReservationRow,
} from '../views/reservations.js';
import type { WebContext } from './context.js';

type ListQuery = OperationRequest<'listReservations'>['query'];
type AdminQuery = ListQuery & { bookId?: string };

/** The list's query, plus the book of the admin's "Reservations of this book" link. */
const adminQuery = (() => {
  const schema = parametersOf('listReservations', 'query');
  return {
    ...schema,
    properties: { ...schema.properties, bookId: optionalParameter('createReservation', 'path', 'bookId') },
  };
})();

const DONE: Record<Transition, string> = {
  cancel: 'The reservation is cancelled.',
  collect: 'Marked collected.',
  return: 'Marked returned.',
  renew: 'The loan is renewed.',
};

/** The query a list page keeps in its pager and forms (everything but the page number). */
function keptQuery(
  values: Record<string, string | readonly string[] | number | boolean | undefined>,
): URLSearchParams {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || name === 'page') continue;
    for (const one of Array.isArray(value) ? value : [value]) query.append(name, String(one));
  }
  return query;
}

/** "My reservations", the admin's list of everyone's, and the cancel / collect / return buttons. */
export function reservationRoutes({ page, books, reservations, users, render }: WebContext): void {
  async function rows(user: User, items: Reservation[], withHolders: boolean): Promise<ReservationRow[]> {
    const titles = await books.getMany(
      user,
      items.map((reservation) => reservation.bookId),
    );
    const holders = withHolders
      ? new Map(
          (await users.findByIds([...new Set(items.map((r) => r.userId))])).map((holder) => [
            holder.id,
            holder.email === null ? displayName(holder) : `${displayName(holder)} (${holder.email})`,
          ]),
        )
      : undefined;
    return items.map((reservation) => ({
      reservation,
      book: titles.get(reservation.bookId) as Book | undefined,
      ...(holders === undefined ? {} : { holder: holders.get(reservation.userId) ?? reservation.userId }),
      transitions: transitionsFor(user, reservation),
    }));
  }

  page<ListQuery, unknown>({
    method: 'GET',
    url: PATHS.myReservations,
    access: 'listReservations',
    query: parametersOf('listReservations', 'query'),
    async handler(request, reply, flash) {
      const user = signedInUser(request);
      const paging = pageRequest(request.query);
      // Always the viewer's own, admins included: the admin list is a page of its own.
      const filter = { userId: user.id, ...(request.query.status ? { status: request.query.status } : {}) };
      const { items, total } = await reservations.list(user, filter, paging);
      const body = myReservationsBody({
        viewer: render.viewer(request),
        rows: await rows(user, items, false),
        metadata: pageMetadata(paging, total),
        path: PATHS.myReservations,
        query: keptQuery({ ...request.query, userId: undefined, sort: undefined, size: undefined }),
      });
      return render(request, reply, { title: 'My reservations', current: PATHS.myReservations, flash, body });
    },
  });

  page<AdminQuery, unknown>({
    method: 'GET',
    url: PATHS.adminReservations,
    // Everyone's reservations are for the people who collect and return them.
    access: 'collectReservation',
    query: adminQuery,
    async handler(request, reply, flash) {
      const user = signedInUser(request);
      const paging = pageRequest(request.query);
      const { status, userId, bookId } = request.query;
      const book = bookId === undefined ? undefined : await books.get(user, bookId);
      const filter = {
        ...(status === undefined ? {} : { status }),
        ...(userId === undefined ? {} : { userId }),
        ...(book === undefined ? {} : { bookId: book.id }),
      };
      const { items, total } = await reservations.list(user, filter, paging);
      const body = adminReservationsBody(
        {
          viewer: render.viewer(request),
          rows: await rows(user, items, true),
          metadata: pageMetadata(paging, total),
          path: PATHS.adminReservations,
          query: keptQuery({ status, userId, bookId }),
        },
        status,
        book,
      );
      return render(request, reply, {
        title: 'All reservations',
        current: PATHS.adminReservations,
        flash,
        body,
      });
    },
  });

  page<ListQuery, unknown>({
    method: 'GET',
    url: PATHS.overdueLoans,
    access: 'returnReservation',
    query: parametersOf('listReservations', 'query'),
    async handler(request, reply, flash) {
      const user = signedInUser(request);
      // The page's own order: the due date, oldest first (the longest overdue on top).
      const paging = {
        ...pageRequest(request.query),
        sort: [{ property: 'dueAt' as const, direction: 'asc' as const }],
      };
      const { items, total } = await reservations.list(user, { overdue: true }, paging);
      const body = overdueLoansBody({
        viewer: render.viewer(request),
        rows: await rows(user, items, true),
        metadata: pageMetadata(paging, total),
        path: PATHS.overdueLoans,
        query: new URLSearchParams(),
      });
      return render(request, reply, { title: 'Overdue loans', current: PATHS.overdueLoans, flash, body });
    },
  });

  const operations = {
    cancel: 'cancelReservation',
    collect: 'collectReservation',
    return: 'returnReservation',
    renew: 'renewReservation',
  } as const;
  for (const transition of Object.keys(operations) as Transition[]) {
    page<unknown, { bookId: string; reservationId: string }>({
      method: 'POST',
      url: `/web/books/:bookId/reservations/:reservationId/${transition}`,
      access: operations[transition],
      params: parametersOf(operations[transition], 'path'),
      async handler(request, reply) {
        const { bookId, reservationId } = request.params;
        await reservations.apply(signedInUser(request), bookId, reservationId, transition);
        return redirectWithFlash(request, reply, { kind: 'success', text: DONE[transition] });
      },
    });
  }
}
