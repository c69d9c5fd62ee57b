/**
 * Strings built by concatenation or cut from a larger text (the YAML parser's scalars) are held
 * by V8 as ropes or slices: they cost more memory, keep their source alive, and are slower to
 * compare as Map keys. A copy through UTF-8 is one flat string. A string that does not survive
 * the UTF-8 round trip (lone surrogates) is returned as is.
 */
export function flatten(text: string): string {
  const flat = Buffer.from(text, 'utf8').toString('utf8');
  return flat === text ? flat : text;
}
