import type { Keywords } from '../binding/bind.js';
import { AcceptHeader } from './accept.js';
import { allAddresses, clientAddress } from './client-address.js';
import type { Exchange } from './exchange.js';
import { parseSearch } from './query.js';

export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

const NO_POSITIONALS: readonly unknown[] = Object.freeze([]);

/**
 * `this.request.url`: the absolute URL, plus the reference's `controller()` and `module()`, which
 * build URLs under the path of the controller class or of its module:
 * for `GET /foomod/bar/x`, `url.controller('y', { q: '1' })` is `http://host/foomod/bar/y?q=1`
 * and `url.module()` is `http://host/foomod`.
 */
export class EndpointUrl extends URL {
  readonly #controllerPath: string;
  readonly #modulePath: string;

  constructor(href: string, controllerPath: string, modulePath: string) {
    super(href);
    this.#controllerPath = controllerPath;
    this.#modulePath = modulePath;
  }

  controller(...parts: (string | Record<string, string>)[]): EndpointUrl {
    return this.#under(this.#controllerPath, parts);
  }

  module(...parts: (string | Record<string, string>)[]): EndpointUrl {
    return this.#under(this.#modulePath, parts);
  }

  #under(base: string, parts: (string | Record<string, string>)[]): EndpointUrl {
    const query = typeof parts.at(-1) === 'object' ? (parts.pop() as Record<string, string>) : {};
    const segments = [base, ...(parts as string[]).map((part) => encodeURIComponent(part))].filter(Boolean);
    const url = new EndpointUrl(
      `${this.origin}/${segments.join('/')}`,
      this.#controllerPath,
      this.#modulePath,
    );
    for (const [name, value] of Object.entries(query)) url.searchParams.append(name, value);
    return url;
  }
}
export const NO_KEYWORDS: Readonly<Keywords> = Object.freeze(Object.create(null));

/**
 * `this.request` inside a handler. Built when the request arrives; dispatch fills in the arguments
 * as it learns them (path positionals when routed, then the query, then the body). Everything else
 * is computed on first use.
 */
export class EndpointRequest {
  readonly method: string;
  /** The path as sent, without the query string. */
  readonly path: string;
  /** The query string as sent, without the `?`. */
  readonly search: string;
  /** Positional arguments: leftover path segments (decoded) plus body positionals. */
  positionals: readonly unknown[] = NO_POSITIONALS;
  /** Keyword arguments: the query, overridden by body fields. */
  keywords: Readonly<Keywords> = NO_KEYWORDS;
  /** The parsed body: an object, array, string or bytes; undefined without a body. */
  body: unknown = undefined;
  readonly #exchange: Exchange;
  #segments: readonly string[] = NO_POSITIONALS as readonly string[];
  #controllerDepth = 0;
  #moduleDepth = 0;
  #url: EndpointUrl | undefined;
  #query: Keywords | undefined;

  constructor(exchange: Exchange) {
    this.#exchange = exchange;
    this.method = exchange.method;
    const target = exchange.target;
    const query = target.indexOf('?');
    this.path = query === -1 ? target : target.slice(0, query);
    this.search = query === -1 ? '' : target.slice(query + 1);
  }

  /**
   * Records where routing landed: `segments` of the path, of which the first `controllerDepth`
   * name the controller class and the first `moduleDepth` its module.
   */
  routed(segments: readonly string[], controllerDepth: number, moduleDepth: number): void {
    this.#segments = segments;
    this.#controllerDepth = controllerDepth;
    this.#moduleDepth = moduleDepth;
  }

  /** The request target as sent: path and query string. */
  get target(): string {
    return this.#exchange.target;
  }

  /** `HTTP/1.1` and the like. */
  get protocol(): string {
    return this.#exchange.protocol();
  }

  /** One header by name (case-insensitive). */
  header(name: string): string | undefined {
    return this.#exchange.header(name.toLowerCase());
  }

  get headers(): Headers {
    return this.#exchange.headers();
  }

  /**
   * The absolute URL the client requested (host `localhost` when the Host header is unusable), with
   * `controller()` and `module()` (see EndpointUrl).
   */
  get url(): EndpointUrl {
    if (this.#url === undefined) {
      const target = this.#exchange.target;
      const origin = this.#exchange.origin();
      const href = URL.canParse(target, origin)
        ? new URL(target, origin).href
        : new URL(target, 'http://localhost').href;
      const path = (depth: number) =>
        this.#segments
          .slice(0, depth)
          .map((segment) => encodeURIComponent(segment))
          .join('/');
      this.#url = new EndpointUrl(href, path(this.#controllerDepth), path(this.#moduleDepth));
    }
    return this.#url;
  }

  /**
   * The `version` parameter of the most preferred Accept entry matching `mediaType` that has one
   * (`Accept: application/json;version=v1` → `v1`; `*\/*;version=v8` → `v8` for any type); `''`
   * without one, as in the reference.
   */
  version(mediaType = '*/*'): string {
    for (const entry of new AcceptHeader(this.header('accept')).filter(mediaType)) {
      if (entry.params.version) return entry.params.version;
    }
    return '';
  }

  /** The most preferred Accept media type, or `''` when it has a wildcard or there is none. */
  get acceptMediaType(): string {
    const first = new AcceptHeader(this.header('accept')).entries[0];
    return first && first.type !== '*' && first.subtype !== '*' ? `${first.type}/${first.subtype}` : '';
  }

  /** The charset of the request's Content-Type, or undefined. */
  get encoding(): string | undefined {
    return /;\s*charset=("?)([^";]+)\1/i.exec(this.header('content-type') ?? '')?.[2]?.toLowerCase();
  }

  /** Every address the forwarding headers name, public or private, then the peer's. */
  get ipAddresses(): string[] {
    return allAddresses((name) => this.#exchange.header(name), this.#exchange.remoteAddress);
  }

  /** The query string alone as keywords (a repeated key is a list). */
  get query(): Readonly<Keywords> {
    this.#query ??= parseSearch(this.search);
    return this.#query;
  }

  /** The client's address, preferring a public address from X-Forwarded-For and similar headers. */
  get ipAddress(): string | undefined {
    return clientAddress((name) => this.#exchange.header(name), this.#exchange.remoteAddress);
  }

  /**
   * The scheme of the Authorization header, lower-cased (`basic`, `bearer`, …); `''` without the
   * header, or for a value without a token (`Authorization: Basic`), as in the reference.
   */
  get authScheme(): string {
    const match = /^(\S+)\s+\S/.exec(this.header('authorization') ?? '');
    return match ? (match[1] as string).toLowerCase() : '';
  }

  /** Username and password of `Authorization: Basic …`, or undefined when absent or malformed. */
  getAuthBasic(): BasicCredentials | undefined {
    const encoded = this.#credentials('basic');
    if (!encoded) return undefined;
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return undefined;
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }

  /** The token of `Authorization: Bearer …`, or undefined. */
  getAuthBearer(): string | undefined {
    return this.#credentials('bearer') || undefined;
  }

  #credentials(scheme: string): string | undefined {
    if (this.authScheme !== scheme) return undefined;
    return (this.header('authorization') as string).slice(scheme.length).trim();
  }
}
