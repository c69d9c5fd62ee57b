import { CookieBrowser } from '../test/support/cookie-browser.js';
import { signInThroughService } from '../test/support/dev-login.js';

/**
 * Logs in through the provider's form and the service's callback. Returns the session id and the
 * Cookie header a browser would then send (JSESSIONID and XSRF-TOKEN).
 */
export async function login(app: string): Promise<{ sessionId: string; cookie: string }> {
  const browser = new CookieBrowser();
  const landed = await browser.request(await signInThroughService(browser, app, 'alice'));
  if (landed.status !== 302) throw new Error(`login callback answered ${landed.status}`);
  // Cookies ignore ports, so the jar also holds the provider's (same host): keep the service's two.
  const cookies = await browser.jar.getCookies(app);
  const value = (name: string) => cookies.find((cookie) => cookie.key === name)?.value;
  const sessionId = value('JSESSIONID');
  if (sessionId === undefined) throw new Error('no JSESSIONID after login');
  return { sessionId, cookie: `JSESSIONID=${sessionId}; XSRF-TOKEN=${value('XSRF-TOKEN') ?? ''}` };
}

export async function firstBookId(app: string, cookie: string): Promise<string> {
  const response = await fetch(`${app}/books?page=0&size=1`, {
    headers: { cookie, accept: 'application/json' },
  });
  const page = (await response.json()) as { _embedded?: { books?: { id: string }[] } };
  const id = page._embedded?.books?.[0]?.id;
  if (id === undefined) throw new Error(`GET /books answered ${response.status} without books`);
  return id;
}
