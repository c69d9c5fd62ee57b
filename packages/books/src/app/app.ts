import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { healthRoutes } from '../actuator/health.js';
import { Metrics, prometheusRoutes } from '../actuator/metrics.js';
import { auditHandlers } from '../api/audit.handlers.js';
import { booksHandlers } from '../api/books.handlers.js';
import { meHandlers } from '../api/me.handler.js';
import { noticesHandlers } from '../api/notices.handlers.js';
import { reservationsHandlers } from '../api/reservations.handlers.js';
import { csrfProtection } from '../auth/csrf.js';
import { OidcClient } from '../auth/oidc/client.js';
import { CachingSessionStore } from '../auth/session-cache.js';
import { DatabaseSessionStore } from '../auth/session-store.js';
import { sessions } from '../auth/sessions.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { loginRoutes } from '../login/routes.js';
import { AuditRepository } from '../modules/audit/audit.repository.js';
import { AuditService } from '../modules/audit/audit.service.js';
import { BooksRepository } from '../modules/books/books.repository.js';
import { BooksService } from '../modules/books/books.service.js';
import { IdempotencyRepository } from '../modules/idempotency/idempotency.repository.js';
import { CalendarTokens } from '../modules/notices/calendar.js';
import { NoticeDelivery } from '../modules/notices/delivery.js';
import { deliverySchedule } from '../modules/notices/delivery-schedule.js';
import { developmentMailbox, type MailSender, smtpSender } from '../modules/notices/mail-sender.js';
import { NoticesRepository } from '../modules/notices/notices.repository.js';
import { NoticesService } from '../modules/notices/notices.service.js';
import { expirySchedule } from '../modules/reservations/expiry-schedule.js';
import { PickupExpiry } from '../modules/reservations/pickup-expiry.js';
import { ReservationsRepository } from '../modules/reservations/reservations.repository.js';
import { ReservationsService } from '../modules/reservations/reservations.service.js';
import { UsersRepository } from '../modules/users/users.repository.js';
import { AllowedMethods } from '../plugins/app/allowed-methods.js';
import { acceptJsonBodiesOnly } from '../plugins/app/body-parsers.js';
import { clientErrorHandler, rejectEncodedBodies, rejectLongUrls } from '../plugins/app/framework-errors.js';
import { idempotencyHooks } from '../plugins/app/idempotency.js';
import { LingeringClose } from '../plugins/app/lingering-close.js';
import { problemErrorHandler, problemNotFoundHandler } from '../plugins/app/problem.js';
import { RequestLinesAtDebug } from '../plugins/app/request-lines.js';
import { contractSerializerCompiler } from '../plugins/app/serialization.js';
import { checksHook } from '../plugins/app/sync-hooks.js';
import { contractValidatorCompiler } from '../plugins/app/validation.js';
import { apiDocs } from '../plugins/external/docs.js';
import { securityHeaders } from '../plugins/external/security-headers.js';
import { failOpenReporter, perUserRateLimit } from '../rate-limit/per-user-hook.js';
import { createDecider, UserRateLimit } from '../rate-limit/user-rate-limit.js';
import { pageAssets } from '../web/assets.js';
import { webFront } from '../web/plugin.js';
import { contractRoutes } from './api-routes.js';

export interface AppOptions {
  config: Config;
  /** An open, migrated database; the caller owns it and closes it after the app. */
  db: Database;
  logger?: FastifyServerOptions['logger'];
  /** Time for session and pickup expiry; tests move it instead of sleeping. */
  clock?: Clock;
}

/** How long an Idempotency-Key answers with its first answer (the draft's suggested 24 h). */
const IDEMPOTENCY_RETAIN_MS = 24 * 3_600_000;
/** How long a request holds its key before a retry may run it again (its process died mid-request). */
const IDEMPOTENCY_LEASE_MS = 60_000;

/**
 * Where notices go: SMTP_URL; without one, outside production, the development mailbox (the notice is
 * marked sent and the mailbox page shows it); in production without SMTP_URL, nowhere: they stay pending.
 */
function mailSender(config: Config): MailSender | undefined {
  if (config.notices.smtpUrl !== undefined) return smtpSender(config.notices.smtpUrl);
  return config.production ? undefined : developmentMailbox();
}

/** The per-user rate limit hook the configuration asks for (undefined when it is off); closed with the app. */
function userRateLimitHook(app: FastifyInstance, config: Config, now: () => number) {
  const decider = createDecider(config.rateLimit, now);
  if (decider === undefined) return undefined;
  const report = failOpenReporter(app.log, now);
  const limit = new UserRateLimit(decider, report.onFailure, report.onSuccess);
  app.addHook('onClose', () => limit.close());
  return perUserRateLimit(limit);
}

/** Wires the service: cookies, sessions, CSRF, docs and the contract's routes. Does not listen. */
export async function buildApp({ config, db, logger = false, clock }: AppOptions): Promise<FastifyInstance> {
  const headers = securityHeaders({
    publicBaseUrl: config.publicBaseUrl,
    formActionOrigins: config.oidcProviders.map((provider) => provider.issuer.origin),
  });
  const lingering = new LingeringClose(config.lingeringClose);
  const app = Fastify({
    logger,
    logController: new RequestLinesAtDebug(),
    trustProxy: config.trustProxy,
    genReqId: () => randomUUID(),
    // A caller-supplied request id is only trusted behind a proxy that sets it.
    requestIdHeader: config.trustProxy ? 'x-request-id' : false,
    clientErrorHandler: clientErrorHandler(lingering),
    // Malformed paths and over-long path segments, which fail before routing.
    frameworkErrors: (error, request, reply) => {
      headers.setOn(request, reply);
      return problemErrorHandler(error, request, reply);
    },
  });
  lingering.attach(app);
  const allowedMethods = new AllowedMethods();
  allowedMethods.attach(app);
  app.setValidatorCompiler(contractValidatorCompiler());
  app.setSerializerCompiler(contractSerializerCompiler());
  acceptJsonBodiesOnly(app);
  app.setErrorHandler(problemErrorHandler);
  app.setNotFoundHandler(problemNotFoundHandler(allowedMethods));
  // What every response carries and every request is checked for first, in one synchronous hook.
  app.addHook(
    'onRequest',
    checksHook((request, reply) => reply.header('x-request-id', request.id), headers.setOn, rejectLongUrls),
  );
  const refuseEncodedBodies = checksHook(rejectEncodedBodies);
  app.addHook('preParsing', (request, reply, _payload, done) => refuseEncodedBodies(request, reply, done));

  const now = clock ?? Date.now;
  // Every dependency is constructed here and handed to the part that needs it, as an option.
  const users = new UsersRepository(db, config.adminEmails);
  const sessionStore = new DatabaseSessionStore(
    db,
    users,
    config.session.secret,
    config.session.idleTimeoutMs,
    now,
  );
  const { pickupMs, expirySweepMs, loanMs, maxRenewals } = config.reservations;
  const reservationsRepository = new ReservationsRepository(db, pickupMs, { loanMs, maxRenewals });
  // Reads trust the earliest deadline a probe found for at most a sweep interval (see PickupExpiry).
  const expiry = new PickupExpiry(
    (at) => reservationsRepository.expireOverdue(at),
    now,
    pickupMs,
    Math.min(expirySweepMs, pickupMs),
  );
  const reservationsService = new ReservationsService(reservationsRepository, expiry, now);
  const booksService = new BooksService(new BooksRepository(db, pickupMs), expiry, now);
  const auditService = new AuditService(new AuditRepository(db));
  const idempotencyKeys = new IdempotencyRepository(db, IDEMPOTENCY_RETAIN_MS, IDEMPOTENCY_LEASE_MS);
  const noticesRepository = new NoticesRepository(db);
  const noticesService = new NoticesService(
    noticesRepository,
    new CalendarTokens(config.session.secret),
    now,
    config.notices.dueSoonMs,
  );
  const sender = mailSender(config);
  if (sender !== undefined) {
    const { delivery, pollMs } = config.notices;
    deliverySchedule(
      app,
      new NoticeDelivery(noticesRepository, sender, now, delivery),
      delivery.batchSize,
      pollMs,
    );
    app.addHook('onClose', async () => sender.close());
  } else {
    app.log.warn('SMTP_URL is not set: notices are queued but not sent; set SMTP_URL to deliver them');
  }
  expirySchedule(
    app,
    {
      expire: () => expiry.expireOverdue(),
      recordOverdue: () => reservationsService.recordOverdue(),
      queueReminders: () => noticesService.queueReminders(),
      purgeIdempotencyKeys: () => idempotencyKeys.purgeExpired(new Date(now())),
    },
    expirySweepMs,
  );
  await app.register(fastifyCookie);
  await app.register(sessions, {
    store: new CachingSessionStore(sessionStore, now),
    publicBaseUrl: config.publicBaseUrl,
    purgeIntervalMs: config.session.purgeIntervalMs,
  });
  app.decorateRequest('csrfToken', '');
  app.addHook('onRequest', checksHook(csrfProtection(config.publicBaseUrl)));

  const metrics = new Metrics(
    db,
    () => sessionStore.countActive(),
    () => noticesRepository.countByStatus(),
  );
  await prometheusRoutes(app, { metrics, metricsToken: config.metricsToken });
  await app.register(healthRoutes, { db, metricsToken: config.metricsToken });
  await app.register(loginRoutes, {
    recordLogin: metrics.recordLogin,
    oidc: new OidcClient(config.oidcProviders),
    users,
    publicBaseUrl: config.publicBaseUrl,
    pagePolicy: headers.usePagePolicy,
  });
  await app.register(pageAssets);
  await app.register(apiDocs);
  const rateLimit = userRateLimitHook(app, config, now);
  await app.register(webFront, {
    books: booksService,
    reservations: reservationsService,
    audit: auditService,
    users,
    notices: noticesService,
    publicBaseUrl: config.publicBaseUrl,
    mailbox:
      config.notices.smtpUrl === undefined && !config.production
        ? { from: config.notices.delivery.from }
        : undefined,
    rateLimit,
    pagePolicy: headers.usePagePolicy,
  });
  await contractRoutes(
    app,
    {
      ...booksHandlers(booksService, config.publicBaseUrl),
      ...reservationsHandlers(reservationsService, config.publicBaseUrl),
      ...meHandlers(config.publicBaseUrl),
      ...auditHandlers(auditService, config.publicBaseUrl),
      ...noticesHandlers(noticesService, config.publicBaseUrl),
    },
    rateLimit,
    idempotencyHooks(idempotencyKeys, now),
  );
  return app;
}
