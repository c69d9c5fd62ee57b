import type { FastifyReply, FastifyRequest } from 'fastify';
import { signedInUser } from '../auth/signed-in-user.js';
import {
  conditionalGet,
  entityTag,
  sendTagged,
  versionForConditionalWrite,
} from '../http/conditional-requests.js';
import { baseUrlOf } from '../http/links.js';
import { HAL_CONTENT_TYPE, type OperationHandlers } from '../http/operations.js';
import { pageLinks, pageMetadata, pageRequest } from '../http/pagination.js';
import type { Transition } from '../modules/reservations/reservation.js';
import type { ReservationsService } from '../modules/reservations/reservations.service.js';
import { reservationResource } from './reservations.resource.js';

type ReservationOperations =
  | 'createReservation'
  | 'getReservation'
  | 'cancelReservation'
  | 'collectReservation'
  | 'returnReservation'
  | 'renewReservation'
  | 'listReservations';

export function reservationsHandlers(
  reservations: ReservationsService,
  publicBaseUrl: string | undefined,
): Pick<OperationHandlers, ReservationOperations> {
  const applied = async (
    request: FastifyRequest & { params: { bookId: string; reservationId: string } },
    reply: FastifyReply,
    transition: Transition,
  ) => {
    const user = signedInUser(request);
    const { bookId, reservationId } = request.params;
    const base = baseUrlOf(request, publicBaseUrl);
    const expectedVersion = await versionForConditionalWrite(
      request,
      () => reservations.get(user, bookId, reservationId),
      (current) => entityTag(current.version, reservationResource(base, current, user)),
    );
    const reservation = await reservations.apply(user, bookId, reservationId, transition, expectedVersion);
    return sendTagged(reply, reservation.version, reservationResource(base, reservation, user));
  };
  return {
    async createReservation(request, reply) {
      const user = signedInUser(request);
      const reservation = await reservations.reserve(user, request.params.bookId);
      const resource = reservationResource(baseUrlOf(request, publicBaseUrl), reservation, user);
      reply.code(201).header('location', resource._links.self.href);
      return sendTagged(reply, reservation.version, resource);
    },
    async getReservation(request, reply) {
      const user = signedInUser(request);
      const { bookId, reservationId } = request.params;
      const reservation = await reservations.get(user, bookId, reservationId);
      const resource = reservationResource(baseUrlOf(request, publicBaseUrl), reservation, user);
      return conditionalGet(request, reply, reservation.version, resource);
    },
    cancelReservation: (request, reply) => applied(request, reply, 'cancel'),
    collectReservation: (request, reply) => applied(request, reply, 'collect'),
    returnReservation: (request, reply) => applied(request, reply, 'return'),
    renewReservation: (request, reply) => applied(request, reply, 'renew'),
    async listReservations(request, reply) {
      const user = signedInUser(request);
      const base = baseUrlOf(request, publicBaseUrl);
      const { userId, status, overdue } = request.query;
      const page = pageRequest(request.query);
      const { items, total } = await reservations.list(
        user,
        {
          ...(userId === undefined ? {} : { userId }),
          ...(status === undefined ? {} : { status }),
          ...(overdue === undefined ? {} : { overdue }),
        },
        page,
      );
      const metadata = pageMetadata(page, total);
      reply.type(HAL_CONTENT_TYPE);
      return {
        _embedded: { reservations: items.map((reservation) => reservationResource(base, reservation, user)) },
        _links: pageLinks(base, '/reservations', page, metadata, { userId, status, overdue }),
        page: metadata,
      };
    },
  };
}
