import { signedInUser } from '../../auth/signed-in-user.js';
import type { OperationRequest } from '../../http/operations.js';
import { pageMetadata, pageRequest } from '../../http/pagination.js';
import { NOTICE_KINDS } from '../../modules/notices/notice.js';
import { formOf, redirectWithFlash } from '../../pages/forms.js';
import { PATHS } from '../../pages/paths.js';
import { displayName } from '../../pages/viewer.js';
import { parametersOf } from '../contract-rules.js';
import { accountBody, failedNoticesBody, kindField, mailboxBody } from '../views/notices.js';
import type { WebContext } from './context.js';

type PageQuery = OperationRequest<'listNotices'>['query'];

/** The feed's address as the API gives it (`calendarUrl`), from the page's own origin. */
function calendarUrlOf(
  request: { protocol: string; host: string },
  publicBaseUrl: string | undefined,
  token: string,
) {
  return `${publicBaseUrl ?? `${request.protocol}://${request.host}`}/calendar/${token}.ics`;
}

/**
 * The account page (notice kinds on or off, the calendar feed's address and its rotation), the admin's
 * failed notices with Resend, and, without an SMTP server outside production, the development mailbox.
 */
export function noticeRoutes({ page, notices, users, render, publicBaseUrl, mailbox }: WebContext): void {
  page({
    method: 'GET',
    url: PATHS.account,
    access: 'getNoticeSettings',
    async handler(request, reply, flash) {
      const settings = await notices.settings(signedInUser(request).id);
      const body = accountBody({
        viewer: render.viewer(request),
        disabledKinds: settings.disabledKinds,
        calendarUrl: calendarUrlOf(request, publicBaseUrl, settings.calendarToken),
        mailbox: mailbox === undefined ? undefined : PATHS.mailbox,
      });
      return render(request, reply, { title: 'Account', current: PATHS.account, flash, body });
    },
  });

  page({
    method: 'POST',
    url: PATHS.accountNotices,
    access: 'updateNoticeSettings',
    async handler(request, reply) {
      const form = formOf(request);
      // A checkbox left unticked is not sent: the kinds whose box is missing are the ones turned off.
      const disabled = NOTICE_KINDS.filter((kind) => form[kindField(kind)] !== 'on');
      await notices.updateSettings(signedInUser(request).id, disabled);
      return redirectWithFlash(
        request,
        reply,
        { kind: 'success', text: 'Notice settings saved.' },
        PATHS.account,
      );
    },
  });

  page({
    method: 'POST',
    url: PATHS.accountCalendar,
    access: 'rotateCalendarToken',
    async handler(request, reply) {
      await notices.rotateCalendarToken(signedInUser(request).id);
      return redirectWithFlash(
        request,
        reply,
        { kind: 'success', text: 'Your calendar has a new address; the old one no longer works.' },
        PATHS.account,
      );
    },
  });

  page<PageQuery, unknown>({
    method: 'GET',
    url: PATHS.failedNotices,
    access: 'listNotices',
    query: parametersOf('listNotices', 'query'),
    async handler(request, reply, flash) {
      const paging = pageRequest({ ...request.query, sort: [] });
      const { items, total } = await notices.list({ status: 'failed' }, paging);
      const people = new Map(
        (await users.findByIds([...new Set(items.map((n) => n.userId))])).map((u) => [u.id, displayName(u)]),
      );
      const body = failedNoticesBody({
        viewer: render.viewer(request),
        notices: items,
        people,
        metadata: pageMetadata(paging, total),
      });
      return render(request, reply, { title: 'Failed notices', current: PATHS.failedNotices, flash, body });
    },
  });

  page<unknown, { noticeId: string }>({
    method: 'POST',
    url: '/web/admin/notices/:noticeId/resend',
    access: 'resendNotice',
    params: parametersOf('resendNotice', 'path'),
    async handler(request, reply) {
      await notices.resend(request.params.noticeId);
      return redirectWithFlash(request, reply, { kind: 'success', text: 'The notice will be sent again.' });
    },
  });

  if (mailbox !== undefined) {
    page({
      method: 'GET',
      url: PATHS.mailbox,
      access: 'getNoticeSettings',
      async handler(request, reply, flash) {
        const body = mailboxBody(await notices.mailbox(mailbox.from));
        return render(request, reply, { title: 'Development mailbox', flash, body });
      },
    });
  }
}
