import { type Keywords, newKeywords } from '../binding/bind.js';

/**
 * What URLSearchParams would change: `+` and percent-escapes, which it decodes, and surrogates,
 * which it passes through UTF-8 (a lone one becomes U+FFFD).
 */
const NEEDS_DECODING = /[%+\uD800-\uDFFF]/;

const NO_NAMES: readonly string[] = [];

/**
 * Query strings and urlencoded bodies as keywords: `+` is a space, a repeated key becomes a list,
 * `?a` gives `a = ''`. Keys like `__proto__` are plain data (see newKeywords).
 * A query with nothing to decode (the common case) is split by hand, exactly as URLSearchParams
 * splits it (a leading `?` dropped, empty pairs skipped, the first `=` separating name and value),
 * without the list of entries URLSearchParams builds and iterates. A key equal to one of
 * `knownNames` (the handler's, see BindingPlan) is that string itself, not a new one.
 */
export function parseSearch(search: string, knownNames: readonly string[] = NO_NAMES): Keywords {
  const keywords = newKeywords();
  if (NEEDS_DECODING.test(search)) {
    for (const [name, value] of new URLSearchParams(search)) add(keywords, name, value);
    return keywords;
  }
  let start = search.charCodeAt(0) === 63 /* ? */ ? 1 : 0;
  while (start < search.length) {
    let end = search.indexOf('&', start);
    if (end === -1) end = search.length;
    if (end > start) {
      const equals = search.indexOf('=', start);
      if (equals === -1 || equals > end) add(keywords, nameIn(search, start, end, knownNames), '');
      else add(keywords, nameIn(search, start, equals, knownNames), search.slice(equals + 1, end));
    }
    start = end + 1;
  }
  return keywords;
}

/** The name at `search[start, end)`: one of `knownNames` when it matches, else a new string. */
function nameIn(search: string, start: number, end: number, knownNames: readonly string[]): string {
  const length = end - start;
  for (let i = 0; i < knownNames.length; i += 1) {
    const name = knownNames[i] as string;
    if (name.length === length && search.startsWith(name, start)) return name;
  }
  return search.slice(start, end);
}

function add(keywords: Keywords, name: string, value: string): void {
  const previous = keywords[name];
  if (previous === undefined) keywords[name] = value;
  else if (Array.isArray(previous)) previous.push(value);
  else keywords[name] = [previous, value];
}
