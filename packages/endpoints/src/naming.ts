/**
 * Naming convention between code names and URL segments, after the reference's NamingConvention.
 */

function kebab(words: string): string {
  return words
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

/**
 * The URL segment a controller class answers, after the reference's naming convention:
 * `CheBaz` → `che-baz`, `HTTPServer` → `http-server`, `FooBar_txt` → `foo-bar.txt`,
 * `Default_html` → `index.html`. `Default` itself has no segment (its methods hang on the module).
 */
export function classSegment(className: string): string {
  const underscore = className.indexOf('_');
  const stem = underscore === -1 ? className : className.slice(0, underscore);
  const extension = underscore === -1 ? '' : className.slice(underscore + 1).toLowerCase();
  const name = stem === 'Default' && extension ? 'index' : kebab(stem);
  return extension ? `${name}.${extension}` : name;
}

/** The URL segment of a module file or directory name: `foo_bar` → `foo-bar`, `fooBar` → `foo-bar`. */
export function moduleSegment(fileStem: string): string {
  return kebab(fileStem).replace(/_/g, '-');
}

/**
 * The spellings of a segment a request may use: kebab, snake and their upper-case forms, so class
 * `CheBaz` answers `/che-baz`, `/che_baz`, `/CHE-BAZ` and `/CHE_BAZ` (not `/CheBaz` nor `/chebaz`).
 */
export function segmentVariations(segment: string): string[] {
  const snake = segment.replace(/-/g, '_');
  return [...new Set([segment, snake, segment.toUpperCase(), snake.toUpperCase()])];
}

/** The extension of a class segment (`foo.xml` → `xml`), which picks the response media type. */
export function segmentExtension(segment: string): string | undefined {
  const dot = segment.lastIndexOf('.');
  return dot === -1 ? undefined : segment.slice(dot + 1);
}

/** `_Foo` and `FooController` are helpers, never routes. */
export function isPrivateClassName(name: string): boolean {
  return name.startsWith('_') || name.endsWith('Controller');
}

/** Only exact upper-case verb names (`GET`, `POST`, `PROPFIND`, …) and `ANY` are handlers. */
export function isHandlerName(name: string): boolean {
  return /^[A-Z]+$/.test(name);
}
