import mime from 'mime-types';

/** Content-Type for a media type, adding `; charset=utf-8` to text types that lack a charset. */
export function withCharset(mediaType: string): string {
  if (/;\s*charset=/i.test(mediaType)) return mediaType;
  const charset = mime.charset(mediaType.split(';', 1)[0] as string);
  return charset ? `${mediaType}; charset=${charset.toLowerCase()}` : mediaType;
}

/** Content-Type for a class extension (`Foo_txt` → `text/plain; charset=utf-8`); undefined when unknown. */
export function mediaTypeForExtension(extension: string): string | undefined {
  const mediaType = mime.lookup(extension);
  return mediaType ? withCharset(mediaType) : undefined;
}

/** The bare, lower-case media type of a Content-Type value (`Text/Plain; charset=x` → `text/plain`). */
export function baseMediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
}

/** `application/json` and every `*+json` type. */
export function isJsonType(contentType: string | undefined): boolean {
  const base = baseMediaType(contentType);
  return base === 'application/json' || base.endsWith('+json');
}
