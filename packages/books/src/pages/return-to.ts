/** Where a login without a saved URL lands: the home page of the web front. */
const fallback = '/';

/**
 * The URL to land on after login, as saved before the redirect to the provider. Only a path on this
 * service is followed: anything that could leave the origin (`//host`, `/\host`, `https://…`) or
 * carries control characters falls back to the home page, so the login cannot be turned into an open redirect.
 */
export function safeReturnTo(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length > 2048) return fallback;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rejects
  if (/[\u0000-\u001f\u007f]/.test(raw)) return fallback;
  const parsed = new URL(raw, 'http://service.invalid');
  if (parsed.origin !== 'http://service.invalid') return fallback;
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}
