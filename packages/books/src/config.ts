import { resolve } from 'node:path';
import { OidcError } from './auth/oidc/errors.js';
import { loadOidcProviders, type OidcProviderSettings } from './auth/oidc/settings.js';
import type { DatabaseConfig } from './db/open.js';
import type { PgliteThread } from './db/pglite.js';
import { LOG_FORMATS, type LogFormat } from './log-format.js';
import type { DeliverySettings } from './modules/notices/delivery.js';
import type { LingeringBounds } from './plugins/app/lingering-close.js';
import type { RateLimitSettings } from './rate-limit/user-rate-limit.js';

export interface SessionConfig {
  /** Keys the HMAC under which session ids are stored. */
  secret: string;
  /** True when SESSION_SECRET was not set and the development default is in use. */
  secretIsDevelopmentDefault: boolean;
  idleTimeoutMs: number;
  /** How often expired sessions are deleted (SESSION_PURGE_INTERVAL, default 5m). */
  purgeIntervalMs: number;
}

export interface ReservationConfig {
  /** How long a READY reservation holds its copy (PICKUP_DAYS). */
  pickupMs: number;
  /** How often the service expires overdue READY reservations without waiting for a reader. */
  expirySweepMs: number;
  /** How long a loan runs from its collection, and how far a renewal moves its due date (LOAN_DAYS). */
  loanMs: number;
  /** How often a loan may be renewed (MAX_RENEWALS). */
  maxRenewals: number;
}

export interface NoticeConfig {
  /** SMTP_URL; undefined: the development mailbox (outside production) or no delivery at all. */
  smtpUrl: string | undefined;
  /** How far ahead a loan's due date is announced (DUE_SOON_DAYS). */
  dueSoonMs: number;
  /** How often the worker looks for due notices when the last round found few (NOTICE_POLL_INTERVAL). */
  pollMs: number;
  delivery: DeliverySettings;
}

export interface Config {
  notices: NoticeConfig;
  /** Per-user limits: in process (RATE_LIMIT_PER_MINUTE), on a rate limit service (RATE_LIMIT_SERVICE), or off. */
  rateLimit: RateLimitSettings;
  port: number;
  host: string;
  publicBaseUrl: string | undefined;
  trustProxy: boolean;
  database: DatabaseConfig;
  /** Where the embedded PGlite runs when `database` is PGlite (PGLITE_THREAD): a worker thread, or the server's. */
  pgliteThread: PgliteThread;
  /** Verified emails that get ROLE_ADMIN at login, lower-cased. */
  adminEmails: string[];
  session: SessionConfig;
  reservations: ReservationConfig;
  /** Login providers (OIDC_PROVIDERS, OIDC_<ID>_*); see .env.example. */
  oidcProviders: OidcProviderSettings[];
  production: boolean;
  logLevel: string;
  /** LOG_FORMAT; undefined: text on a terminal, JSON otherwise (see resolveLogFormat). */
  logFormat: LogFormat | undefined;
  /** After an early answer, how long and how much of the rest of the body is read before closing. */
  lingeringClose: LingeringBounds;
  /** Bearer token a Prometheus scraper sends for /actuator/prometheus (METRICS_TOKEN); admins need none. */
  metricsToken: string | undefined;
}

export class ConfigError extends Error {
  readonly code = 'BOOKS_CONFIG_INVALID';
}

/** The default data directory of the embedded database, relative to the working directory. */
export const DEFAULT_PGLITE_DIR = './data/pglite';
const DEVELOPMENT_SESSION_SECRET = 'development-only-session-secret-do-not-use-in-production';
const MIN_SECRET_LENGTH = 32;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parseInteger(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`invalid ${name} '${raw}': expected an integer from ${min} to ${max}`);
  }
  return value;
}

function parsePort(raw: string | undefined, fallback: number): number {
  return parseInteger('PORT', raw, fallback, 0, 65_535);
}

function parseBaseUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`invalid PUBLIC_BASE_URL '${raw}': expected an absolute http(s) URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`invalid PUBLIC_BASE_URL '${raw}': expected an absolute http(s) URL`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigError(`invalid PUBLIC_BASE_URL '${raw}': it must not carry a query or fragment`);
  }
  return url.href.replace(/\/$/, '');
}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  const value = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(`invalid ${name} '${raw}': expected true or false`);
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `30m`, `1800s`, `1h`, `90000ms`; a bare number is seconds (as Spring's session timeout). */
function parseDuration(name: string, raw: string | undefined, fallbackMs: number, minMs = 1000): number {
  if (raw === undefined || raw === '') return fallbackMs;
  const match = /^(\d+)(ms|s|m|h)?$/.exec(raw.trim());
  const amount = Number(match?.[1]);
  const unitMs = DURATION_UNITS_MS[match?.[2] ?? 's'] ?? 1000;
  if (!match || amount * unitMs < minMs) {
    const least = minMs % 1000 === 0 ? `${minMs / 1000}s` : `${minMs}ms`;
    throw new ConfigError(
      `invalid ${name} '${raw}': expected a duration of at least ${least}, such as 30m, 1800s or 1h`,
    );
  }
  return amount * unitMs;
}

function parseDatabase(env: NodeJS.ProcessEnv): DatabaseConfig {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return { driver: 'pglite', dataDir: resolve(DEFAULT_PGLITE_DIR) };
  if (raw === 'pglite:memory') return { driver: 'pglite', dataDir: undefined };
  if (raw.startsWith('pglite:')) {
    const path = raw.slice('pglite:'.length).replace(/^\/\//, '');
    if (path === '')
      throw new ConfigError(`invalid DATABASE_URL '${raw}': pglite:<directory> needs a directory`);
    return { driver: 'pglite', dataDir: resolve(path) };
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('invalid DATABASE_URL: not a parseable postgres:// URL');
    }
    return {
      driver: 'postgres',
      url: raw,
      poolMax: parseInteger('DB_POOL_MAX', env.DB_POOL_MAX, 10, 1, 1000),
    };
  }
  throw new ConfigError(
    `invalid DATABASE_URL '${raw.split('@').pop()}': expected postgres://…, pglite:<directory> or pglite:memory`,
  );
}

function parsePgliteThread(raw: string | undefined): PgliteThread {
  if (raw === undefined || raw === '') return 'worker';
  if (raw === 'main' || raw === 'worker') return raw;
  throw new ConfigError(`invalid PGLITE_THREAD '${raw}': expected worker or main`);
}

function parseAdminEmails(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const emails = raw
    .split(',')
    .map((email) => email.trim().toLowerCase())
    .filter((email) => email !== '');
  for (const email of emails) {
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      throw new ConfigError(
        `invalid ADMIN_EMAILS entry '${email}': expected a comma-separated list of emails`,
      );
    }
  }
  return emails;
}

function parseSession(env: NodeJS.ProcessEnv, production: boolean): SessionConfig {
  const idleTimeoutMs = parseDuration('SESSION_IDLE_TIMEOUT', env.SESSION_IDLE_TIMEOUT, 30 * 60_000);
  const purgeIntervalMs = parseDuration('SESSION_PURGE_INTERVAL', env.SESSION_PURGE_INTERVAL, 5 * 60_000);
  const secret = env.SESSION_SECRET;
  if (secret === undefined || secret === '') {
    if (production) {
      throw new ConfigError(
        `SESSION_SECRET is required when NODE_ENV=production: set it to a random string of at least ${MIN_SECRET_LENGTH} characters`,
      );
    }
    return {
      secret: DEVELOPMENT_SESSION_SECRET,
      secretIsDevelopmentDefault: true,
      idleTimeoutMs,
      purgeIntervalMs,
    };
  }
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(`invalid SESSION_SECRET: it must be at least ${MIN_SECRET_LENGTH} characters long`);
  }
  return { secret, secretIsDevelopmentDefault: false, idleTimeoutMs, purgeIntervalMs };
}

function parseLogLevel(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'info';
  if (!LOG_LEVELS.includes(raw)) {
    throw new ConfigError(`invalid LOG_LEVEL '${raw}': expected one of ${LOG_LEVELS.join(', ')}`);
  }
  return raw;
}

function parseLogFormat(raw: string | undefined): LogFormat | undefined {
  if (raw === undefined || raw === '') return undefined;
  const format = LOG_FORMATS.find((name) => name === raw);
  if (format === undefined) {
    throw new ConfigError(`invalid LOG_FORMAT '${raw}': expected ${LOG_FORMATS.join(' or ')}`);
  }
  return format;
}

function parseOidcProviders(env: NodeJS.ProcessEnv): OidcProviderSettings[] {
  try {
    return loadOidcProviders(env);
  } catch (error) {
    if (error instanceof OidcError) throw new ConfigError(error.message);
    throw error;
  }
}

function parseRateLimit(env: NodeJS.ProcessEnv): RateLimitSettings {
  const service = env.RATE_LIMIT_SERVICE;
  if (service !== undefined && service !== '') {
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(service);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65_535) {
      throw new ConfigError(
        `invalid RATE_LIMIT_SERVICE '${service}': expected host:port of a rate limit service's gRPC API`,
      );
    }
    return {
      mode: 'remote',
      address: service,
      timeoutMs: parseInteger('RATE_LIMIT_TIMEOUT_MS', env.RATE_LIMIT_TIMEOUT_MS, 200, 1, 60_000),
    };
  }
  const perMinute = parseInteger('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 600, 0, 1_000_000_000);
  return perMinute === 0 ? { mode: 'off' } : { mode: 'in-process', perMinute };
}

function parseMetricsToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(`invalid METRICS_TOKEN: it must be at least ${MIN_SECRET_LENGTH} characters long`);
  }
  return raw;
}

function parseSmtpUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  // The value is not repeated in the message: it may hold a password.
  const invalid = new ConfigError('invalid SMTP_URL: expected smtp://[user:pass@]host[:port] or smtps://…');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid;
  }
  if ((url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') throw invalid;
  return raw;
}

function parseNotices(env: NodeJS.ProcessEnv): NoticeConfig {
  const retryBaseMs = parseDuration('NOTICE_RETRY_BASE', env.NOTICE_RETRY_BASE, 30_000);
  const retryMaxMs = parseDuration('NOTICE_RETRY_MAX', env.NOTICE_RETRY_MAX, 3_600_000);
  if (retryMaxMs < retryBaseMs) {
    throw new ConfigError(
      `invalid NOTICE_RETRY_MAX '${env.NOTICE_RETRY_MAX}': it must be at least NOTICE_RETRY_BASE`,
    );
  }
  return {
    smtpUrl: parseSmtpUrl(env.SMTP_URL),
    dueSoonMs: parseInteger('DUE_SOON_DAYS', env.DUE_SOON_DAYS, 3, 1, 365) * 86_400_000,
    pollMs: parseDuration('NOTICE_POLL_INTERVAL', env.NOTICE_POLL_INTERVAL, 1000, 10),
    delivery: {
      from: env.MAIL_FROM || 'The library <library@books.local>',
      retryBaseMs,
      retryMaxMs,
      maxAttempts: parseInteger('NOTICE_MAX_ATTEMPTS', env.NOTICE_MAX_ATTEMPTS, 8, 1, 100),
      leaseMs: parseDuration('NOTICE_LEASE', env.NOTICE_LEASE, 120_000),
      batchSize: 50,
    },
  };
}

/** Reads and validates the service configuration from the environment. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  return {
    port: parsePort(env.PORT, 3000),
    host: env.HOST || '127.0.0.1',
    publicBaseUrl: parseBaseUrl(env.PUBLIC_BASE_URL),
    trustProxy: parseBoolean('TRUST_PROXY', env.TRUST_PROXY, false),
    database: parseDatabase(env),
    pgliteThread: parsePgliteThread(env.PGLITE_THREAD),
    adminEmails: parseAdminEmails(env.ADMIN_EMAILS),
    session: parseSession(env, production),
    rateLimit: parseRateLimit(env),
    reservations: {
      pickupMs: parseInteger('PICKUP_DAYS', env.PICKUP_DAYS, 3, 1, 365) * 86_400_000,
      expirySweepMs: parseDuration('EXPIRY_SWEEP_INTERVAL', env.EXPIRY_SWEEP_INTERVAL, 60_000),
      loanMs: parseInteger('LOAN_DAYS', env.LOAN_DAYS, 21, 1, 365) * 86_400_000,
      maxRenewals: parseInteger('MAX_RENEWALS', env.MAX_RENEWALS, 2, 0, 100),
    },
    notices: parseNotices(env),
    oidcProviders: parseOidcProviders(env),
    production,
    logLevel: parseLogLevel(env.LOG_LEVEL),
    logFormat: parseLogFormat(env.LOG_FORMAT),
    metricsToken: parseMetricsToken(env.METRICS_TOKEN),
    lingeringClose: {
      timeMs: parseDuration('LINGERING_CLOSE_TIME', env.LINGERING_CLOSE_TIME, 5000, 10),
      bytes: parseInteger('LINGERING_CLOSE_BYTES', env.LINGERING_CLOSE_BYTES, 32 * 1024 * 1024, 0, 2 ** 40),
    },
  };
}
