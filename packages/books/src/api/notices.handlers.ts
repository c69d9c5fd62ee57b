import { signedInUser } from '../auth/signed-in-user.js';
import type { Schemas } from '../contract/schemas.js';
import { baseUrlOf } from '../http/links.js';
import { HAL_CONTENT_TYPE, type OperationHandlers } from '../http/operations.js';
import { pageLinks, pageMetadata, pageRequest } from '../http/pagination.js';
import { messageIdOf, type Notice } from '../modules/notices/notice.js';
import type { NoticesService, UserNoticeSettings } from '../modules/notices/notices.service.js';

/** A notice as the contract's Notice. */
export function noticeResource(notice: Notice): Schemas['Notice'] {
  return {
    id: notice.id,
    kind: notice.kind,
    userId: notice.userId,
    reservationId: notice.reservationId,
    bookId: notice.bookId,
    bookTitle: notice.bookTitle,
    subjectAt: notice.subjectAt.toISOString(),
    createdAt: notice.createdAt.toISOString(),
    status: notice.status,
    attempts: notice.attempts,
    nextAttemptAt: notice.nextAttemptAt.toISOString(),
    sentAt: notice.sentAt?.toISOString() ?? null,
    lastError: notice.lastError,
    messageId: messageIdOf(notice.id),
  };
}

/** The absolute address of a calendar feed. */
export function calendarUrl(base: string, token: string): string {
  return `${base}/calendar/${token}.ics`;
}

function settingsResource(base: string, settings: UserNoticeSettings): Schemas['NoticeSettings'] {
  return { disabledKinds: settings.disabledKinds, calendarUrl: calendarUrl(base, settings.calendarToken) };
}

export function noticesHandlers(
  notices: NoticesService,
  publicBaseUrl: string | undefined,
): Pick<
  OperationHandlers,
  | 'listNotices'
  | 'resendNotice'
  | 'getNoticeSettings'
  | 'updateNoticeSettings'
  | 'rotateCalendarToken'
  | 'getCalendarFeed'
> {
  return {
    async listNotices(request, reply) {
      const { status } = request.query;
      const page = pageRequest({ ...request.query, sort: [] });
      const { items, total } = await notices.list(status === undefined ? {} : { status }, page);
      const metadata = pageMetadata(page, total);
      reply.type(HAL_CONTENT_TYPE);
      return {
        _embedded: { notices: items.map(noticeResource) },
        _links: pageLinks(baseUrlOf(request, publicBaseUrl), '/notices', page, metadata, { status }),
        page: metadata,
      };
    },
    async resendNotice(request, reply) {
      const notice = await notices.resend(request.params.noticeId);
      reply.type(HAL_CONTENT_TYPE);
      return noticeResource(notice);
    },
    async getNoticeSettings(request, reply) {
      const settings = await notices.settings(signedInUser(request).id);
      reply.type(HAL_CONTENT_TYPE);
      return settingsResource(baseUrlOf(request, publicBaseUrl), settings);
    },
    async updateNoticeSettings(request, reply) {
      const settings = await notices.updateSettings(signedInUser(request).id, request.body.disabledKinds);
      reply.type(HAL_CONTENT_TYPE);
      return settingsResource(baseUrlOf(request, publicBaseUrl), settings);
    },
    async rotateCalendarToken(request, reply) {
      const settings = await notices.rotateCalendarToken(signedInUser(request).id);
      reply.type(HAL_CONTENT_TYPE);
      return settingsResource(baseUrlOf(request, publicBaseUrl), settings);
    },
    async getCalendarFeed(request, reply) {
      const feed = await notices.calendarFeed(request.params.token);
      reply.type('text/calendar; charset=utf-8');
      return feed;
    },
  };
}
