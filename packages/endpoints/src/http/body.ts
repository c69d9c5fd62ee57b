import { TextDecoder } from 'node:util';
import { type Keywords, newKeywords } from '../binding/bind.js';
import { CallError } from '../errors.js';
import { baseMediaType, isJsonType } from '../media-type.js';
import { parseSearch } from './query.js';

/** What a parsed body may contribute, beyond the byte limit the interfaces enforce while reading. */
export interface BodyLimits {
  /** Most positional arguments a body may give (a JSON array's elements). */
  readonly positionals: number;
  /** Most parts in a multipart body. */
  readonly parts: number;
  /** Largest multipart field without a filename, in bytes. */
  readonly fieldBytes: number;
}

/** What a request body contributes to the handler's arguments. */
export interface ParsedBody {
  readonly value: unknown;
  readonly positionals: readonly unknown[];
  readonly keywords: Keywords | null;
}

const NO_POSITIONALS: readonly unknown[] = Object.freeze([]);
const NOTHING: ParsedBody = { value: undefined, positionals: NO_POSITIONALS, keywords: null };

/**
 * Turns a buffered body into arguments, by Content-Type, for every method (as the reference does):
 * - JSON (`application/json`, `*+json`): an object gives keywords, an array positionals, a scalar one
 *   positional; invalid JSON → 400;
 * - `application/x-www-form-urlencoded`: keywords, a repeated key is a list;
 * - `multipart/form-data`: keywords, a part with a filename is a web `File`, a repeated name keeps the
 *   last value; malformed → 400 (parsed by the platform's `Response.formData`);
 * - `text/plain`: the decoded text as one positional (charset honoured, invalid bytes → 400);
 * - anything else, or no Content-Type: the raw bytes as one positional.
 * Only multipart is parsed asynchronously; every other body is parsed in the same tick.
 */
export function parseBody(
  bytes: Uint8Array,
  contentType: string | undefined,
  limits: BodyLimits,
): ParsedBody | Promise<ParsedBody> {
  if (bytes.byteLength === 0) return NOTHING;
  // The common Content-Type spelled exactly needs no parsing of the header.
  if (contentType === 'application/json') return parseJson(bytes, undefined, limits);
  const mediaType = baseMediaType(contentType);
  if (isJsonType(mediaType)) return parseJson(bytes, contentType, limits);
  if (mediaType === 'application/x-www-form-urlencoded') {
    const keywords = parseSearch(decodeText(bytes, contentType));
    return { value: keywords, positionals: NO_POSITIONALS, keywords };
  }
  if (mediaType === 'multipart/form-data') return parseMultipart(bytes, contentType as string, limits);
  if (mediaType === 'text/plain') {
    const text = decodeText(bytes, contentType);
    return { value: text, positionals: [text], keywords: null };
  }
  return { value: bytes, positionals: [bytes], keywords: null };
}

function parseJson(bytes: Uint8Array, contentType: string | undefined, limits: BodyLimits): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(decodeText(bytes, contentType));
  } catch (error) {
    if (error instanceof CallError) throw error;
    throw new CallError(400, `invalid JSON body: ${(error as Error).message}`);
  }
  if (Array.isArray(value)) {
    // Positionals become call arguments, and a call takes only so many before the stack overflows.
    if (value.length > limits.positionals) {
      throw new CallError(
        400,
        `the JSON body is an array of ${value.length} items; at most ${limits.positionals} can be positional arguments (send an object instead)`,
      );
    }
    return { value, positionals: value, keywords: null };
  }
  if (typeof value === 'object' && value !== null) {
    return { value, positionals: NO_POSITIONALS, keywords: Object.assign(newKeywords(), value) };
  }
  return { value, positionals: [value], keywords: null };
}

async function parseMultipart(
  bytes: Uint8Array,
  contentType: string,
  limits: BodyLimits,
): Promise<ParsedBody> {
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch (error) {
    throw new CallError(400, `invalid multipart body: ${(error as Error).message}`);
  }
  const keywords: Keywords = newKeywords();
  let parts = 0;
  for (const [name, value] of form) {
    parts += 1;
    if (parts > limits.parts) {
      throw new CallError(400, `the multipart body has more than ${limits.parts} parts`);
    }
    if (typeof value === 'string' && Buffer.byteLength(value) > limits.fieldBytes) {
      throw new CallError(
        413,
        `multipart field '${name}' is larger than the limit of ${limits.fieldBytes} bytes`,
      );
    }
    keywords[name] = value;
  }
  return { value: keywords, positionals: NO_POSITIONALS, keywords };
}

const UTF8: TextDecoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Decoders by charset label as sent. A decoder used without `stream` keeps no state between calls,
 * so one serves every request; an unknown label is never stored, and the map stops growing at
 * `DECODERS_KEPT` spellings (a client may vary the case of a label endlessly).
 */
const decoders = new Map<string, TextDecoder>([['utf-8', UTF8]]);
const DECODERS_KEPT = 64;

function decoderFor(label: string): TextDecoder {
  let decoder = decoders.get(label);
  if (decoder === undefined) {
    try {
      decoder = new TextDecoder(label, { fatal: true });
    } catch {
      throw new CallError(400, `unsupported charset '${label}' in Content-Type`);
    }
    if (decoders.size < DECODERS_KEPT) decoders.set(label, decoder);
  }
  return decoder;
}

function decodeText(bytes: Uint8Array, contentType: string | undefined): string {
  const label = contentType === undefined ? undefined : /;\s*charset=("?)([^";]+)\1/i.exec(contentType)?.[2];
  const charset = label ?? 'utf-8';
  const decoder = label === undefined ? UTF8 : decoderFor(label);
  try {
    return decoder.decode(bytes);
  } catch {
    throw new CallError(400, `the body is not valid ${charset}`);
  }
}
