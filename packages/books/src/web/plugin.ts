import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { AppError } from '../errors.js';
import type { AuditService } from '../modules/audit/audit.service.js';
import type { BooksService } from '../modules/books/books.service.js';
import type { NoticesService } from '../modules/notices/notices.service.js';
import type { ReservationsService } from '../modules/reservations/reservations.service.js';
import type { UsersRepository } from '../modules/users/users.repository.js';
import { pageErrorHandler } from '../pages/errors.js';
import { acceptForms } from '../pages/forms.js';
import { pageRoutes } from './page-route.js';
import { adminBookRoutes } from './routes/admin-books.js';
import { auditRoutes } from './routes/audit.js';
import { catalogueRoutes } from './routes/catalogue.js';
import { render } from './routes/context.js';
import { noticeRoutes } from './routes/notices.js';
import { reservationRoutes } from './routes/reservations.js';

export interface WebFrontOptions {
  books: BooksService;
  reservations: ReservationsService;
  audit: AuditService;
  users: UsersRepository;
  notices: NoticesService;
  publicBaseUrl: string | undefined;
  /** The development mailbox page, when notices go there (no SMTP_URL, not production). */
  mailbox: { from: string } | undefined;
  /** The per-user rate limit of the API (undefined when it is off): pages count like API calls. */
  rateLimit: onRequestHookHandler | undefined;
  /** Sets the pages' Content-Security-Policy. */
  pagePolicy: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

/**
 * The web front: server-rendered pages over the same services (and the same contract rules) as the
 * API. Encapsulated, so its form parser, page CSP and HTML error pages stay its own.
 */
export async function webFront(app: FastifyInstance, options: WebFrontOptions): Promise<void> {
  app.addHook('onRequest', options.pagePolicy);
  app.setErrorHandler(pageErrorHandler(options.pagePolicy));
  acceptForms(app);
  const context = {
    page: pageRoutes(app, options.rateLimit),
    books: options.books,
    reservations: options.reservations,
    audit: options.audit,
    users: options.users,
    notices: options.notices,
    publicBaseUrl: options.publicBaseUrl,
    mailbox: options.mailbox,
    render,
  };
  catalogueRoutes(context);
  reservationRoutes(context);
  adminBookRoutes(context);
  auditRoutes(context);
  noticeRoutes(context);
  // `/web/` is the pages' own space, so a mistyped page address is a page (problem details for
  // scripts) through the error handler above; elsewhere an unknown path stays the API's 404 or 405.
  await app.register(
    async (pages) => {
      pages.setNotFoundHandler(async (request) => {
        throw new AppError(
          'not_found',
          'PAGE_NOT_FOUND',
          `There is no page at ${request.url.split('?')[0]}.`,
        );
      });
    },
    { prefix: '/web' },
  );
}
