import { assertMatchesContract, findOperation } from './contract.js';
import type { TestSession } from './test-sessions.js';

// biome-ignore lint/suspicious/noExplicitAny: bodies are checked against the contract at runtime; tests read fields freely
export interface ApiResponse<Body = any> {
  status: number;
  headers: Headers;
  body: Body;
  /** Every Set-Cookie header, parsed to name → full header line. */
  cookies: Map<string, string>;
}

export interface RequestOptions {
  session?: TestSession;
  body?: unknown;
  /** A raw request body (sent as given, with the content type from headers). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Skip the automatic CSRF header for unsafe methods (to test the CSRF check itself). */
  withoutXsrf?: boolean;
}

function parseSetCookies(headers: Headers): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const line of headers.getSetCookie()) cookies.set(line.split('=')[0] ?? '', line);
  return cookies;
}

/**
 * A real HTTP client for the service. Every response to a contract operation is checked against the
 * contract (status declared, media type declared, body valid), so each test also tests the contract.
 */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.session !== undefined) {
      headers.cookie = options.session.cookie;
      if (!options.withoutXsrf) headers['x-xsrf-token'] = options.session.xsrf;
    }
    let payload: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: payload,
      redirect: 'manual',
    });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    const body = text === '' ? undefined : contentType?.includes('json') ? JSON.parse(text) : text;
    const pathOnly = path.split('?')[0] ?? path;
    if (findOperation(method, pathOnly) !== undefined && response.status !== 302) {
      assertMatchesContract(method, pathOnly, response.status, contentType, body, response.headers);
    }
    return {
      status: response.status,
      headers: response.headers,
      body,
      cookies: parseSetCookies(response.headers),
    };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, options?: RequestOptions) {
    return this.request('POST', path, options);
  }
  put(path: string, options?: RequestOptions) {
    return this.request('PUT', path, options);
  }
  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }
}
