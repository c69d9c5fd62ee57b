import type { Controller } from '../controller.js';
import { AccessDenied, CallError, isCallError } from '../errors.js';
import { ControllerDecorator, type Decorator } from './decorate.js';

export type BasicCheck = (
  username: string,
  password: string,
  controller: Controller,
) => boolean | Promise<boolean>;
export type BearerCheck = (token: string, controller: Controller) => boolean | Promise<boolean>;
export type AuthCheck = (controller: Controller) => unknown;

export interface AuthOptions {
  /** The check, unless a subclass overrides `before`: false or a throw refuses the request. */
  check?: AuthCheck;
  /** Scheme for `WWW-Authenticate` (title-cased; `Auth` when absent). */
  scheme?: string;
  realm?: string;
}

/**
 * Base of the auth decorators, after the reference's AuthDecorator: its check runs before the
 * handler's arguments are bound, and any failure other than a CallError (false, a throw) answers
 * 401 with `WWW-Authenticate` for its scheme. A CallError raised by the check passes through.
 * Without a check, every request is refused with 403, as in the reference.
 */
export class AuthDecorator extends ControllerDecorator {
  readonly scheme: string;
  readonly realm: string | undefined;
  readonly #check: AuthCheck | undefined;

  constructor(options: AuthOptions = {}) {
    super();
    this.scheme = options.scheme ?? '';
    this.realm = options.realm;
    this.#check = options.check;
  }

  before(controller: Controller): unknown {
    if (this.#check === undefined) {
      throw new CallError(403, 'You need a target function to use authentication');
    }
    return this.#check(controller);
  }

  refuse(_controller: Controller, error: unknown): never {
    if (isCallError(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new AccessDenied(message, { scheme: this.scheme, realm: this.realm });
  }

  /** The decorator; the OpenAPI document shows its scheme and the 401. */
  override decorator(): Decorator {
    return super.decorator({ auth: this.scheme || 'auth', statuses: [401] });
  }
}

class BasicAuth extends AuthDecorator {
  readonly #check: BasicCheck;

  constructor(check: BasicCheck) {
    super({ scheme: 'basic' });
    this.#check = check;
  }

  override get name(): string {
    return 'authBasic';
  }

  override before(controller: Controller): unknown {
    const credentials = controller.request.getAuthBasic();
    if (!credentials?.username) throw new Error('username is required');
    if (!credentials.password) throw new Error('password is required');
    return this.#check(credentials.username, credentials.password, controller);
  }
}

class BearerAuth extends AuthDecorator {
  readonly #check: BearerCheck;

  constructor(check: BearerCheck) {
    super({ scheme: 'bearer' });
    this.#check = check;
  }

  override get name(): string {
    return 'authBearer';
  }

  override before(controller: Controller): unknown {
    const token = controller.request.getAuthBearer();
    if (!token) throw new Error('Authorization bearer token is required');
    return this.#check(token, controller);
  }
}

/**
 * Requires `Authorization: Basic …` accepted by `check`; otherwise 401 with `WWW-Authenticate: Basic`.
 * Use as `@authBasic(check)` on a handler or a class, or `authBasic(check)(function GET() {…})`.
 */
export function authBasic(check: BasicCheck): Decorator {
  return new BasicAuth(check).decorator();
}

/** Requires `Authorization: Bearer <token>` accepted by `check`; otherwise 401 with `WWW-Authenticate: Bearer`. */
export function authBearer(check: BearerCheck): Decorator {
  return new BearerAuth(check).decorator();
}
