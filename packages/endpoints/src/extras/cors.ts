import type { Controller } from '../controller.js';
import type { CorsOption } from '../cors-settings.js';
import { CallError } from '../errors.js';
import type { EndpointResponse } from '../http/response.js';
import { decorate, type HandlerFunction } from './decorate.js';

interface CorsPolicy {
  allows(origin: string): boolean;
  readonly credentials: boolean;
  readonly maxAge: number;
}

function corsPolicy(option: CorsOption | undefined): CorsPolicy | null {
  if (!option) return null;
  const settings = option === true ? {} : option;
  const origins = settings.origins;
  const allows =
    origins === undefined
      ? () => true
      : typeof origins === 'function'
        ? origins
        : (origin: string) => origins.includes(origin);
  return { allows, credentials: settings.credentials ?? true, maxAge: settings.maxAge ?? 3600 };
}

/**
 * Runs before every handler of a CORS class: a request with an allowed Origin gets
 * `Access-Control-Allow-Origin: <origin>` and `Vary: Origin`; a disallowed one is refused with 403.
 */
function admitOrigin(policy: CorsPolicy, origin: string | undefined, response: EndpointResponse) {
  if (origin === undefined) return;
  if (!policy.allows(origin)) throw new CallError(403, `origin ${origin} is not allowed`);
  const headers = response.headers;
  headers.set('access-control-allow-origin', origin);
  headers.append('vary', 'Origin');
  if (policy.credentials) headers.set('access-control-allow-credentials', 'true');
}

/**
 * The preflight answer of the reference's CORSMixin.OPTIONS: Origin, Access-Control-Request-Headers
 * and Access-Control-Request-Method are required (400 naming the missing one) and echoed back; the
 * answer is 204.
 */
function answerPreflight(
  policy: CorsPolicy,
  header: (name: string) => string | undefined,
  response: EndpointResponse,
): void {
  const origin = header('origin');
  if (origin === undefined) throw new CallError(400, 'Need Origin header');
  const requestHeaders = header('access-control-request-headers');
  if (requestHeaders === undefined) throw new CallError(400, 'Need Access-Control-Request-Headers header');
  const requestMethod = header('access-control-request-method');
  if (requestMethod === undefined) throw new CallError(400, 'Need Access-Control-Request-Method header');
  admitOrigin(policy, origin, response);
  const headers = response.headers;
  headers.set('access-control-allow-headers', requestHeaders);
  headers.set('access-control-allow-methods', requestMethod);
  headers.set('access-control-max-age', String(policy.maxAge));
}

/**
 * A CORS class's handlers, as the class option asks: each checks the origin before anything else, and the
 * class answers the preflight with `OPTIONS` unless it has its own. Added when the class is loaded,
 * so dispatch knows nothing about CORS.
 */
export function withCors(
  option: CorsOption | undefined,
  methods: ReadonlyMap<string, HandlerFunction>,
): ReadonlyMap<string, HandlerFunction> {
  const policy = corsPolicy(option);
  if (policy === null) return methods;
  // The origin check is the outermost layer: it runs before any decorator, and before binding.
  const admitting = decorate({
    name: 'cors',
    before: (controller) => admitOrigin(policy, controller.request.header('origin'), controller.response),
  });
  const wrapped = new Map<string, HandlerFunction>();
  for (const [method, fn] of methods) wrapped.set(method, admitting(fn));
  if (!wrapped.has('OPTIONS')) {
    // Any arguments are accepted, as the reference's `OPTIONS(*args, **kwargs)` accepts them.
    wrapped.set('OPTIONS', function OPTIONS(this: Controller, { ...keywords } = {}, ...args: unknown[]) {
      void keywords;
      void args;
      answerPreflight(policy, (name) => this.request.header(name), this.response);
    });
  }
  return wrapped;
}
