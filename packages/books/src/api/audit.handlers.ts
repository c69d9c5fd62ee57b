import type { Schemas } from '../contract/schemas.js';
import { baseUrlOf } from '../http/links.js';
import { HAL_CONTENT_TYPE, type OperationHandlers } from '../http/operations.js';
import { pageLinks, pageMetadata, pageRequest } from '../http/pagination.js';
import type { AuditService } from '../modules/audit/audit.service.js';
import type { AuditEvent } from '../modules/audit/audit-event.js';

/** An audit event as the contract's AuditEvent. */
export function auditEventResource(event: AuditEvent): Schemas['AuditEvent'] {
  return {
    id: event.id,
    at: event.at.toISOString(),
    kind: event.kind,
    actor: { type: event.actorId === null ? 'system' : 'user', userId: event.actorId },
    bookId: event.bookId,
    reservationId: event.reservationId,
    holderId: event.holderId,
    change: event.change,
  };
}

export function auditHandlers(
  audit: AuditService,
  publicBaseUrl: string | undefined,
): Pick<OperationHandlers, 'listAuditEvents'> {
  return {
    async listAuditEvents(request, reply) {
      const { bookId, userId, kind } = request.query;
      // The log has one order, newest first: no sort parameter.
      const page = pageRequest({ ...request.query, sort: [] });
      const { items, total } = await audit.list(
        {
          ...(bookId === undefined ? {} : { bookId }),
          ...(userId === undefined ? {} : { userId }),
          ...(kind === undefined ? {} : { kind }),
        },
        page,
      );
      const metadata = pageMetadata(page, total);
      reply.type(HAL_CONTENT_TYPE);
      return {
        _embedded: { events: items.map(auditEventResource) },
        _links: pageLinks(baseUrlOf(request, publicBaseUrl), '/audit', page, metadata, {
          bookId,
          userId,
          kind,
        }),
        page: metadata,
      };
    },
  };
}
