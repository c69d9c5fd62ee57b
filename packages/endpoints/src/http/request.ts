import type { Keywords } from '../binding/bind.js';
import { clientAddress } from './client-address.js';
import type { Exchange } from './exchange.js';
import { parseSearch } from './query.js';

export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

const NO_POSITIONALS: readonly unknown[] = Object.freeze([]);
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
  #url: URL | undefined;
  #query: Keywords | undefined;

  constructor(exchange: Exchange) {
    this.#exchange = exchange;
    this.method = exchange.method;
    const target = exchange.target;
    const query = target.indexOf('?');
    this.path = query === -1 ? target : target.slice(0, query);
    this.search = query === -1 ? '' : target.slice(query + 1);
  }

  /** One header by name (case-insensitive). */
  header(name: string): string | undefined {
    return this.#exchange.header(name.toLowerCase());
  }

  get headers(): Headers {
    return this.#exchange.headers();
  }

  /** The absolute URL the client requested (host `localhost` when the Host header is unusable). */
  get url(): URL {
    if (this.#url === undefined) {
      const target = this.#exchange.target;
      this.#url = URL.canParse(target, this.#exchange.origin())
        ? new URL(target, this.#exchange.origin())
        : new URL(target, 'http://localhost');
    }
    return this.#url;
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

  /** The scheme of the Authorization header, lower-cased (`basic`, `bearer`, …). */
  get authScheme(): string | undefined {
    const authorization = this.header('authorization');
    if (!authorization) return undefined;
    const space = authorization.indexOf(' ');
    return (space === -1 ? authorization : authorization.slice(0, space)).toLowerCase();
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
