import type { Keywords } from '../binding/bind.js';

/**
 * Query strings and urlencoded bodies as keywords: `+` is a space, a repeated key becomes a list,
 * `?a` gives `a = ''`. The object has no prototype, so keys like `__proto__` are plain data.
 */
export function parseSearch(search: string): Keywords {
  const keywords: Keywords = Object.create(null);
  for (const [name, value] of new URLSearchParams(search)) {
    const previous = keywords[name];
    if (previous === undefined) keywords[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else keywords[name] = [previous, value];
  }
  return keywords;
}
