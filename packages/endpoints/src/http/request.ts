import type { Keywords } from '../binding/bind.js';
import { clientAddress } from './client-address.js';
import type { Exchange } from './exchange.js';
import { parseSearch } from './query.js';

export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * `this.request` inside a handler. Everything beyond method and path is computed on first use.
 */
export class EndpointRequest {
  readonly method: string;
  /** The path as sent, without the query string. */
  readonly path: string;
  /** Positional arguments: leftover path segments (decoded) plus body positionals. */
  readonly positionals: readonly unknown[];
  /** Keyword arguments: the query, overridden by body fields. */
  readonly keywords: Readonly<Keywords>;
  /** The parsed body: an object, array, string or bytes; undefined without a body. */
  readonly body: unknown;
  readonly #exchange: Exchange;
  readonly #search: string;
  #url: URL | undefined;
  #query: Keywords | undefined;

  constructor(
    exchange: Exchange,
    path: string,
    search: string,
    positionals: readonly unknown[],
    keywords: Readonly<Keywords>,
    body: unknown,
  ) {
    this.#exchange = exchange;
    this.method = exchange.method;
    this.path = path;
    this.#search = search;
    this.positionals = positionals;
    this.keywords = keywords;
    this.body = body;
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
    this.#query ??= parseSearch(this.#search);
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
