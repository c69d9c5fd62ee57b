/**
 * The one place response headers are written out, for both interfaces: names go out with
 * underscores as dashes, as the reference sends them (`FOO_BAR` → `foo-bar`), and Set-Cookie keeps
 * one value per cookie (a web `Headers` would otherwise join them with commas).
 */
export function writeHeaders(
  headers: Headers,
  write: (name: string, value: string | string[]) => void,
): void {
  for (const [name, value] of headers) {
    if (name !== 'set-cookie') write(name.includes('_') ? name.replace(/_/g, '-') : name, value);
  }
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) write('set-cookie', cookies);
}
