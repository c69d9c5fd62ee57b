import { delimiter } from 'node:path';
import { EndpointsError } from './errors.js';
// Two type-only imports point up a layer, gone at run time: the settings hold the shapes that the
// drain (http/linger.ts) and the OpenAPI document read, defined beside the code that reads them.
import type { LingerBounds } from './http/linger.js';
import type { OpenApiOptions } from './openapi/document.js';

/** `openapi` option of `createApp`: the document's `info` and `servers`, and where to serve it. */
export interface OpenApiSetting extends OpenApiOptions {
  /** Serve the document as JSON at this path (e.g. `/openapi.json`; `APP_OPENAPI`); not served when absent. */
  path?: string;
}

/** Options of `createApp`. Every option also has an environment setting (see the README table). */
export interface AppOptions {
  /** Controller prefix(es): directories, module files or package specifiers; `:`-separated lists allowed. */
  controllerPrefix?: string | readonly string[];
  /** Alias of `controllerPrefix`, the spec document's spelling. */
  controller_prefix?: string | readonly string[];
  /** Directory relative prefixes are resolved against (default: `process.cwd()`). */
  cwd?: string;
  /** Put stack traces in 500 bodies and log the route table at startup (default false; `APP_DEBUG=1`). */
  debug?: boolean;
  /** Largest request body in bytes; larger bodies get 413 (default 1 MiB; `APP_BODY_LIMIT`). */
  bodyLimit?: number;
  /** Most positional arguments a body may give (a JSON array's items); more → 400 (default 1024; `APP_POSITIONAL_LIMIT`). */
  positionalLimit?: number;
  /** Most parts in a multipart body; more → 400 (default 1000; `APP_MULTIPART_PARTS`). */
  multipartParts?: number;
  /** Largest multipart field without a filename, in bytes; larger → 413 (default 65536; `APP_MULTIPART_FIELD_LIMIT`). */
  multipartFieldLimit?: number;
  /** Largest WebSocket message in bytes; larger closes the socket with 1009 (default 1 MiB; `APP_WEBSOCKET_MESSAGE_LIMIT`). */
  websocketMessageLimit?: number;
  /** Most open WebSockets; more upgrades are refused with 503 (default 1000; `APP_WEBSOCKET_CONNECTIONS`). */
  websocketConnections?: number;
  /** Milliseconds to read the body and settle an async handler; then 503 (default 30000, 0 = off; `APP_REQUEST_TIMEOUT`). */
  requestTimeout?: number;
  /**
   * Most milliseconds a connection is drained after an early answer (a 413, a 503 while the body
   * still arrives, a 431) before it is closed: nginx's `lingering_time` (default 30000; `APP_LINGER_TIME`).
   */
  lingerTime?: number;
  /** Most milliseconds that drain waits for the next byte: nginx's `lingering_timeout` (default 5000; `APP_LINGER_IDLE`). */
  lingerIdle?: number;
  /** Most bytes that drain reads and discards; then it reads no more and ends at `lingerIdle` (default 2 MiB; `APP_LINGER_BYTES`). */
  lingerBytes?: number;
  /** Answer HEAD with the GET handler when a class has no HEAD (default false, like the reference). */
  headFallback?: boolean;
  /** Where failures (500s) are reported, and the route table under `debug` (default: stderr). */
  log?: (line: string) => void;
  /** The OpenAPI document's `info`/`servers`, and the path to serve it at (`APP_OPENAPI`). */
  openapi?: OpenApiSetting;
  /**
   * A tsconfig.json: handler types are read through the TypeScript compiler for the OpenAPI document
   * and response validation (`APP_PROJECT`; default none: TypeScript is then never loaded).
   */
  project?: string;
  /**
   * Check each JSON success response against the schema its handler's return type gives (needs
   * `project`): `off` (default), `log` (a mismatch is logged once per route) or `strict` (a mismatch
   * becomes a 500 naming the bad field, logged with the request id); `APP_RESPONSE_VALIDATION`.
   */
  responseValidation?: ResponseValidation;
  /**
   * Check each incoming WebSocket frame and its body against the documented schemas (needs
   * `project`); a bad frame gets the 400 reply frame and the socket stays open (default false;
   * `APP_MESSAGE_VALIDATION=1`).
   */
  messageValidation?: boolean;
  /** Environment to read settings from (default: `process.env`). */
  env?: Record<string, string | undefined>;
}

export interface Settings {
  readonly prefixes: readonly string[];
  readonly cwd: string;
  readonly debug: boolean;
  readonly bodyLimit: number;
  readonly positionalLimit: number;
  readonly multipartParts: number;
  readonly multipartFieldLimit: number;
  readonly websocketMessageLimit: number;
  readonly websocketConnections: number;
  readonly requestTimeout: number;
  readonly linger: LingerBounds;
  readonly headFallback: boolean;
  readonly log: (line: string) => void;
  readonly openapi: OpenApiSetting;
  readonly project: string | undefined;
  readonly responseValidation: ResponseValidation;
  readonly messageValidation: boolean;
}

export type ResponseValidation = 'off' | 'log' | 'strict';
const RESPONSE_VALIDATION: readonly string[] = ['off', 'log', 'strict'];

function validationSettings(
  options: AppOptions,
  env: Record<string, string | undefined>,
  project: string | undefined,
) {
  const responseValidation = options.responseValidation ?? (env.APP_RESPONSE_VALIDATION || 'off');
  if (!RESPONSE_VALIDATION.includes(responseValidation)) {
    throw new EndpointsError(
      'INVALID_OPTION',
      `responseValidation (APP_RESPONSE_VALIDATION, --response-validation) must be off, log or strict, got '${responseValidation}'`,
    );
  }
  const messageValidation = flag(options.messageValidation, env.APP_MESSAGE_VALIDATION);
  if ((responseValidation !== 'off' || messageValidation) && project === undefined) {
    throw new EndpointsError(
      'INVALID_OPTION',
      "responseValidation and messageValidation check against the handlers' types: give project (APP_PROJECT, --project), a tsconfig.json",
    );
  }
  return { responseValidation: responseValidation as ResponseValidation, messageValidation };
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const DEFAULT_REQUEST_TIMEOUT = 30_000;
const DEFAULT_POSITIONAL_LIMIT = 1024;
const DEFAULT_MULTIPART_PARTS = 1000;
const DEFAULT_MULTIPART_FIELD_LIMIT = 64 * 1024;
const DEFAULT_LINGER_TIME = 30_000;
const DEFAULT_LINGER_IDLE = 5_000;
const DEFAULT_LINGER_BYTES = 2 * 1024 * 1024;

function splitList(value: string): string[] {
  return value
    .split(delimiter)
    .map((part) => part.trim())
    .filter(Boolean);
}

/** `NAME` (a `:`-separated list) plus contiguous `NAME_1`, `NAME_2`, …, as the reference reads them. */
function listSetting(env: Record<string, string | undefined>, name: string): string[] {
  const values = env[name] ? splitList(env[name] as string) : [];
  for (let index = 1; env[`${name}_${index}`]; index += 1)
    values.push(...splitList(env[`${name}_${index}`] as string));
  return values;
}

function asList(value: string | readonly string[]): string[] {
  return typeof value === 'string' ? splitList(value) : value.flatMap(splitList);
}

/** Prefixes from the options, else `APP_PREFIX`, else its alias `ENDPOINTS_PREFIX`. */
function resolvePrefixes(options: AppOptions, env: Record<string, string | undefined>): string[] {
  const { controllerPrefix, controller_prefix: alias } = options;
  if (controllerPrefix !== undefined && alias !== undefined) {
    throw new EndpointsError('INVALID_OPTION', 'give controllerPrefix or controller_prefix, not both');
  }
  const given = controllerPrefix ?? alias;
  const prefixes = given !== undefined ? asList(given) : listSetting(env, 'APP_PREFIX');
  if (prefixes.length === 0 && given === undefined) prefixes.push(...listSetting(env, 'ENDPOINTS_PREFIX'));
  if (prefixes.length === 0) {
    throw new EndpointsError(
      'NO_PREFIX',
      'no controller prefix: pass controllerPrefix, set APP_PREFIX (or ENDPOINTS_PREFIX), or use --prefix',
    );
  }
  return prefixes;
}

function numberSetting(
  option: number | undefined,
  raw: string | undefined,
  name: string,
  fallback: number,
): number {
  const value = option ?? (raw === undefined || raw === '' ? fallback : Number(raw));
  if (!Number.isInteger(value) || value < 0) {
    throw new EndpointsError('INVALID_OPTION', `${name} must be a whole number ≥ 0, got ${option ?? raw}`);
  }
  return value;
}

function flag(option: boolean | undefined, raw: string | undefined): boolean {
  return option ?? (raw !== undefined && ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase()));
}

function openapiSetting(option: OpenApiSetting | undefined, raw: string | undefined): OpenApiSetting {
  const path = option?.path ?? (raw === undefined || raw === '' ? undefined : raw);
  if (path !== undefined && !path.startsWith('/')) {
    throw new EndpointsError(
      'INVALID_OPTION',
      `openapi.path (APP_OPENAPI) must start with '/', got '${path}'`,
    );
  }
  return path === undefined ? { ...option } : { ...option, path };
}

export function resolveSettings(options: AppOptions = {}): Settings {
  const env = options.env ?? process.env;
  const project = options.project ?? (env.APP_PROJECT || undefined);
  return {
    prefixes: resolvePrefixes(options, env),
    cwd: options.cwd ?? process.cwd(),
    debug: flag(options.debug, env.APP_DEBUG),
    bodyLimit: numberSetting(
      options.bodyLimit,
      env.APP_BODY_LIMIT,
      'bodyLimit (APP_BODY_LIMIT)',
      DEFAULT_BODY_LIMIT,
    ),
    positionalLimit: numberSetting(
      options.positionalLimit,
      env.APP_POSITIONAL_LIMIT,
      'positionalLimit (APP_POSITIONAL_LIMIT)',
      DEFAULT_POSITIONAL_LIMIT,
    ),
    multipartParts: numberSetting(
      options.multipartParts,
      env.APP_MULTIPART_PARTS,
      'multipartParts (APP_MULTIPART_PARTS)',
      DEFAULT_MULTIPART_PARTS,
    ),
    multipartFieldLimit: numberSetting(
      options.multipartFieldLimit,
      env.APP_MULTIPART_FIELD_LIMIT,
      'multipartFieldLimit (APP_MULTIPART_FIELD_LIMIT)',
      DEFAULT_MULTIPART_FIELD_LIMIT,
    ),
    websocketMessageLimit: numberSetting(
      options.websocketMessageLimit,
      env.APP_WEBSOCKET_MESSAGE_LIMIT,
      'websocketMessageLimit (APP_WEBSOCKET_MESSAGE_LIMIT)',
      DEFAULT_BODY_LIMIT,
    ),
    websocketConnections: numberSetting(
      options.websocketConnections,
      env.APP_WEBSOCKET_CONNECTIONS,
      'websocketConnections (APP_WEBSOCKET_CONNECTIONS)',
      1000,
    ),
    requestTimeout: numberSetting(
      options.requestTimeout,
      env.APP_REQUEST_TIMEOUT,
      'requestTimeout (APP_REQUEST_TIMEOUT)',
      DEFAULT_REQUEST_TIMEOUT,
    ),
    linger: {
      time: numberSetting(
        options.lingerTime,
        env.APP_LINGER_TIME,
        'lingerTime (APP_LINGER_TIME)',
        DEFAULT_LINGER_TIME,
      ),
      idle: numberSetting(
        options.lingerIdle,
        env.APP_LINGER_IDLE,
        'lingerIdle (APP_LINGER_IDLE)',
        DEFAULT_LINGER_IDLE,
      ),
      bytes: numberSetting(
        options.lingerBytes,
        env.APP_LINGER_BYTES,
        'lingerBytes (APP_LINGER_BYTES)',
        DEFAULT_LINGER_BYTES,
      ),
    },
    headFallback: options.headFallback ?? false,
    log: options.log ?? ((line) => process.stderr.write(`${line}\n`)),
    openapi: openapiSetting(options.openapi, env.APP_OPENAPI),
    project,
    ...validationSettings(options, env, project),
  };
}
