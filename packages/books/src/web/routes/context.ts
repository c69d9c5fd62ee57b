import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditService } from '../../modules/audit/audit.service.js';
import type { BooksService } from '../../modules/books/books.service.js';
import type { NoticesService } from '../../modules/notices/notices.service.js';
import type { ReservationsService } from '../../modules/reservations/reservations.service.js';
import type { UsersRepository } from '../../modules/users/users.repository.js';
import type { SafeHtml } from '../../pages/html.js';
import { type Flash, htmlPage, type Viewer } from '../../pages/layout.js';
import { viewerOf } from '../../pages/viewer.js';
import type { pageRoutes } from '../page-route.js';

export interface PageContent {
  title: string;
  body: SafeHtml;
  flash?: Flash | undefined;
  current?: string;
  status?: number;
}

export interface Render {
  (request: FastifyRequest, reply: FastifyReply, content: PageContent): FastifyReply;
  /** The signed-in viewer of a guarded page. */
  viewer(request: FastifyRequest): Viewer;
}

/** What every group of pages is given: the route registrar, the services the API uses, and the layout. */
export interface WebContext {
  page: ReturnType<typeof pageRoutes>;
  books: BooksService;
  reservations: ReservationsService;
  audit: AuditService;
  users: UsersRepository;
  notices: NoticesService;
  render: Render;
  /** PUBLIC_BASE_URL (the calendar feed's address is built on it). */
  publicBaseUrl: string | undefined;
  /** The development mailbox (no SMTP_URL, not production): the From its mails show; undefined: none. */
  mailbox: { from: string } | undefined;
}

function viewer(request: FastifyRequest): Viewer {
  const found = viewerOf(request);
  if (found === undefined) throw new Error('a guarded page was reached without a signed-in user');
  return found;
}

export const render: Render = Object.assign(
  (request: FastifyRequest, reply: FastifyReply, { title, body, flash, current, status }: PageContent) =>
    reply
      .code(status ?? 200)
      .type('text/html; charset=utf-8')
      .send(htmlPage({ title, body, flash, viewer: viewer(request), ...(current ? { current } : {}) })),
  { viewer },
);
