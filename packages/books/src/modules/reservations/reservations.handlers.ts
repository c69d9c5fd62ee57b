import { baseUrlOf } from '../../http/links.js';
import { HAL_CONTENT_TYPE, type OperationHandlers } from '../../http/operations.js';
import { pageLinks, pageMetadata, pageRequest } from '../../http/pagination.js';
import { signedInUser } from '../../http/request-context.js';
import { reservationResource } from './reservations.resource.js';
import type { ReservationsService } from './reservations.service.js';

type ReservationOperations =
  | 'createReservation'
  | 'getReservation'
  | 'cancelReservation'
  | 'listReservations';

export function reservationsHandlers(
  reservations: ReservationsService,
  publicBaseUrl: string | undefined,
): Pick<OperationHandlers, ReservationOperations> {
  return {
    async createReservation(request, reply) {
      const reservation = await reservations.reserve(signedInUser(request), request.params.bookId);
      const resource = reservationResource(baseUrlOf(request, publicBaseUrl), reservation);
      reply.code(201).type(HAL_CONTENT_TYPE).header('location', resource._links.self.href);
      return resource;
    },
    async getReservation(request, reply) {
      const { bookId, reservationId } = request.params;
      const reservation = await reservations.get(signedInUser(request), bookId, reservationId);
      reply.type(HAL_CONTENT_TYPE);
      return reservationResource(baseUrlOf(request, publicBaseUrl), reservation);
    },
    async cancelReservation(request, reply) {
      const { bookId, reservationId } = request.params;
      const reservation = await reservations.cancel(signedInUser(request), bookId, reservationId);
      reply.type(HAL_CONTENT_TYPE);
      return reservationResource(baseUrlOf(request, publicBaseUrl), reservation);
    },
    async listReservations(request, reply) {
      const base = baseUrlOf(request, publicBaseUrl);
      const { userId, status } = request.query;
      const page = pageRequest(request.query);
      const { items, total } = await reservations.list(
        signedInUser(request),
        { ...(userId === undefined ? {} : { userId }), ...(status === undefined ? {} : { status }) },
        page,
      );
      const metadata = pageMetadata(page, total);
      reply.type(HAL_CONTENT_TYPE);
      return {
        _embedded: { reservations: items.map((reservation) => reservationResource(base, reservation)) },
        _links: pageLinks(base, '/reservations', page, metadata, { userId, status }),
        page: metadata,
      };
    },
  };
}
