import type { Controller } from '../controller.js';
import { AccessDenied, isCallError } from '../errors.js';
import { annotate } from '../routing/annotations.js';
import { type HandlerFunction, runBefore } from './decorate.js';

/** Marks what an auth decorator wraps, so the OpenAPI document shows the scheme and the 401. */
function documented(scheme: string, decorate: ReturnType<typeof runBefore>) {
  return <F extends HandlerFunction>(handler: F, context?: ClassMethodDecoratorContext): F =>
    annotate(decorate(handler, context), { auth: scheme, statuses: [401] });
}

export type BasicCheck = (
  username: string,
  password: string,
  controller: Controller,
) => boolean | Promise<boolean>;
export type BearerCheck = (token: string, controller: Controller) => boolean | Promise<boolean>;

/** Runs `check`; false, or an error other than a CallError, becomes a 401 for `scheme`. */
async function verify(check: () => boolean | Promise<boolean>, scheme: string, name: string): Promise<void> {
  let accepted: boolean;
  try {
    accepted = await check();
  } catch (error) {
    if (isCallError(error)) throw error;
    throw new AccessDenied((error as Error)?.message ?? String(error), { scheme });
  }
  if (!accepted) throw new AccessDenied(`${name} check failed`, { scheme });
}

/**
 * Requires `Authorization: Basic …` accepted by `check`; otherwise 401 with `WWW-Authenticate: Basic`.
 * Use as `@authBasic(check)` on a handler, or `authBasic(check)(function GET() {…})`.
 */
export function authBasic(check: BasicCheck) {
  const decorate = runBefore((controller) => {
    const credentials = controller.request.getAuthBasic();
    if (!credentials?.username) throw new AccessDenied('username is required', { scheme: 'basic' });
    if (!credentials.password) throw new AccessDenied('password is required', { scheme: 'basic' });
    return verify(() => check(credentials.username, credentials.password, controller), 'basic', 'authBasic');
  });
  return documented('basic', decorate);
}

/** Requires `Authorization: Bearer <token>` accepted by `check`; otherwise 401 with `WWW-Authenticate: Bearer`. */
export function authBearer(check: BearerCheck) {
  const decorate = runBefore((controller) => {
    const token = controller.request.getAuthBearer();
    if (!token) throw new AccessDenied('Authorization bearer token is required', { scheme: 'bearer' });
    return verify(() => check(token, controller), 'bearer', 'authBearer');
  });
  return documented('bearer', decorate);
}
