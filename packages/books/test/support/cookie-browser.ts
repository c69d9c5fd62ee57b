import { CookieJar } from 'tough-cookie';

/**
 * A minimal browser for tests: fetch with a cookie jar and redirects followed by hand, so each hop
 * (and the cookies it sets) can be inspected, and the walk can stop before a URL nobody serves.
 */
export class CookieBrowser {
  readonly jar = new CookieJar();

  async request(url: string | URL, init: RequestInit = {}): Promise<Response> {
    const target = String(url);
    const headers = new Headers(init.headers);
    const cookie = await this.jar.getCookieString(target);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const setCookie of response.headers.getSetCookie()) {
      await this.jar.setCookie(setCookie, target, { ignoreError: true });
    }
    return response;
  }

  /**
   * Follows redirects from `url` until a non-redirect response, or until the next location starts
   * with `stopAt` (returned unfetched as `stoppedAt`).
   */
  async follow(
    url: string | URL,
    options: { init?: RequestInit; stopAt?: string; maxHops?: number } = {},
  ): Promise<{ response: Response; url: string; stoppedAt?: URL; hops: string[] }> {
    let current = String(url);
    let init = options.init ?? {};
    const hops: string[] = [];
    for (let hop = 0; hop <= (options.maxHops ?? 15); hop++) {
      const response = await this.request(current, init);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) {
        return { response, url: current, hops };
      }
      await response.body?.cancel();
      const next = new URL(location, current);
      hops.push(next.href);
      if (options.stopAt !== undefined && next.href.startsWith(options.stopAt)) {
        return { response, url: current, stoppedAt: next, hops };
      }
      current = next.href;
      init = {};
    }
    throw new Error(`more than ${options.maxHops ?? 15} redirects from ${String(url)}`);
  }

  /** Submits an HTML form the way a browser does (urlencoded POST), then follows redirects. */
  submitForm(action: string | URL, fields: Record<string, string>, stopAt?: string) {
    return this.follow(action, {
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      },
      ...(stopAt === undefined ? {} : { stopAt }),
    });
  }
}

/** The first `<form ... action="...">` of a page, resolved against the page URL. */
export function formAction(html: string, pageUrl: string): URL {
  const match = /<form[^>]*\saction="([^"]+)"/i.exec(html);
  if (!match?.[1]) throw new Error(`no form with an action on ${pageUrl}`);
  return new URL(match[1].replace(/&amp;/g, '&'), pageUrl);
}

/** The hidden inputs of a page's forms, by name. */
export function hiddenInputs(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input[^>]*type="hidden"[^>]*>/gi)) {
    const name = /name="([^"]+)"/.exec(match[0])?.[1];
    const value = /value="([^"]*)"/.exec(match[0])?.[1];
    if (name !== undefined) fields[name] = value ?? '';
  }
  return fields;
}
