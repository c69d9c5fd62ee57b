/**
 * The URL segment a controller class answers, after the reference's naming convention:
 * `CheBaz` → `che-baz`, `HTTPServer` → `http-server`, `FooBar_txt` → `foo-bar.txt`.
 */
export function classSegment(className: string): string {
  const underscore = className.indexOf('_');
  const stem = underscore === -1 ? className : className.slice(0, underscore);
  const extension = underscore === -1 ? '' : className.slice(underscore + 1).toLowerCase();
  const kebab = stem
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase();
  return extension ? `${kebab}.${extension}` : kebab;
}
