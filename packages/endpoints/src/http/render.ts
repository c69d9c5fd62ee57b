import { KEYWORDS_PROTOTYPE } from '../binding/bind.js';
import { answersAsSuccess, isCallError } from '../errors.js';
import { isJsonType, withCharset } from '../media-type.js';
import type { Outcome, StreamBody } from './outcome.js';
import { EndpointResponse } from './response.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The one function that shapes error bodies: a JSON string of the message (the reference's v10
 * shape), so changing the shape is a one-line change.
 */
export function errorBody(message: string): string {
  return JSON.stringify(message);
}

function isStream(value: object): value is StreamBody {
  return (
    value instanceof ReadableStream ||
    typeof (value as { pipe?: unknown }).pipe === 'function' ||
    Symbol.asyncIterator in value
  );
}

/** Strings, numbers, booleans, plain objects and arrays: values that can only be rendered as JSON. */
function isPlainData(value: unknown): boolean {
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  if (type !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return (
    prototype === Object.prototype ||
    prototype === Array.prototype ||
    prototype === null ||
    prototype === KEYWORDS_PROTOTYPE
  );
}

function isGenerator(value: unknown): value is Iterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Iterator<unknown>).next === 'function' &&
    Symbol.iterator in value
  );
}

const UTF8 = new TextDecoder();

/**
 * JSON for any value. The plain fast path first; values JSON cannot take as they are are retried
 * with a replacer: BigInt → string, Map → object, Set → array, and bytes (a `Uint8Array` or Buffer
 * nested in the value) → their text, as the reference's JSON encoder does.
 */
export function toJson(value: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    json = JSON.stringify(value, widenJson);
    if (json === undefined) throw error;
  }
  if (json === undefined) throw new TypeError(`a ${typeof value} cannot be rendered as JSON`);
  if ((json.length < SCAN_FROM || mayNeedWidening(json)) && needsWidening(value, 0))
    return JSON.stringify(value, widenJson);
  return json;
}

/** Below this many characters, walking the value costs less than scanning its JSON for marks. */
const SCAN_FROM = 64;

/**
 * Whether the text shows the marks bytes, Maps and Sets leave in JSON: a Buffer's own toJSON gives
 * `{"type":"Buffer",…}`, any other Uint8Array its indices, `{"0":…}`, or `{}` when empty; a Map or
 * a Set is always `{}`. Only then is a longer value walked for them, a walk that costs a fifth to a
 * half of JSON.stringify itself (a list of 10,000 records spent a millisecond on it). An empty
 * Uint8Array carrying properties of its own in a longer value leaves no mark and renders as an object.
 */
function mayNeedWidening(json: string): boolean {
  return json.includes('{}') || json.includes('{"0":') || json.includes('{"type":"Buffer"');
}

/** Whether bytes, a Map or a Set sit somewhere in plain data (objects and arrays, up to 64 levels deep). */
function needsWidening(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null || depth > 64) return false;
  if (value instanceof Uint8Array || value instanceof Map || value instanceof Set) return true;
  if (Array.isArray(value)) return value.some((item) => needsWidening(item, depth + 1));
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null && prototype !== KEYWORDS_PROTOTYPE) return false;
  for (const key in value) if (needsWidening((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

function widenJson(this: Record<string, unknown>, key: string, value: unknown): unknown {
  // `this[key]`, not `value`: a Buffer has already become `{ type, data }` through its toJSON.
  const raw = this[key];
  if (raw instanceof Uint8Array) return UTF8.decode(raw);
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Map) return Object.fromEntries(value);
  if (value instanceof Set) return [...value];
  return value;
}

/**
 * Renders a handler's return value: JSON (a string is a JSON string) unless the handler chose a
 * non-JSON media type, in which case strings and bytes go out as they are. `undefined`/`null` → 204;
 * a `Response`, `Uint8Array` or stream passes through. JSON is serialised completely before anything
 * is sent, so a serialisation error still becomes a clean 500.
 */
export function renderValue(value: unknown, response: EndpointResponse, defaultMediaType?: string): Outcome {
  const headers = response.touchedHeaders ?? null;
  if (response.code !== undefined) checkStatus(response.code);
  // The common case first: plain data, no media type or headers chosen by the handler.
  if (
    headers === null &&
    response.mediaType === undefined &&
    defaultMediaType === undefined &&
    isPlainData(value)
  ) {
    return { status: response.code ?? 200, contentType: JSON_TYPE, headers, body: toJson(value) };
  }
  if (value === undefined || value === null) {
    return { status: response.code ?? 204, contentType: undefined, headers, body: null };
  }
  if (value instanceof Response) {
    return { status: value.status, contentType: undefined, headers: null, body: null, passThrough: value };
  }
  const status = response.code ?? 200;
  const explicitType = headers?.get('content-type') ?? undefined;
  if (explicitType !== undefined) headers?.delete('content-type');
  const chosenType = explicitType ?? (response.mediaType ? withCharset(response.mediaType) : undefined);
  const contentType = chosenType ?? defaultMediaType;
  if (value instanceof Uint8Array || (typeof value === 'object' && isStream(value))) {
    return { status, contentType: contentType ?? 'application/octet-stream', headers, body: value };
  }
  if (typeof value === 'string' && contentType !== undefined && !isJsonType(contentType)) {
    return { status, contentType, headers, body: value };
  }
  // A generator is drained into a JSON array, as the reference does; it is not streamed.
  const json = toJson(isGenerator(value) ? Array.from(value) : value);
  return { status, contentType: contentType ?? JSON_TYPE, headers, body: json };
}

function checkStatus(code: number): void {
  if (!Number.isInteger(code) || code < 200 || code > 599) {
    throw new RangeError(`response.code must be a whole number from 200 to 599, got ${code}`);
  }
}

/** The answer when an outcome cannot be sent as built (say, a media type with a line break in it). */
export function unsendable(error: unknown): Outcome {
  const message = `the handler's response could not be sent: ${(error as Error)?.message ?? String(error)}`;
  return { status: 500, contentType: JSON_TYPE, headers: null, body: errorBody(message) };
}

/** Renders a thrown value. Headers the handler set before failing are kept, as in the reference. */
export function renderError(error: unknown, response: EndpointResponse, debug: boolean): Outcome {
  const headers = response.touchedHeaders ?? null;
  if (!isCallError(error)) {
    const message = error instanceof Error ? (debug && error.stack) || error.message : String(error);
    return { status: 500, contentType: JSON_TYPE, headers, body: errorBody(message) };
  }
  const merged = mergeHeaders(headers, error.headers);
  if (answersAsSuccess(error)) {
    const outcome = renderValue(error.body, new EndpointResponse());
    return { ...outcome, status: error.code, headers: merged };
  }
  if (error.body !== undefined) {
    return { status: error.code, contentType: JSON_TYPE, headers: merged, body: toJson(error.body) };
  }
  return { status: error.code, contentType: JSON_TYPE, headers: merged, body: errorBody(error.message) };
}

function mergeHeaders(base: Headers | null, extra: Headers): Headers | null {
  let merged = base;
  for (const [name, value] of extra) {
    merged ??= new Headers();
    merged.set(name, value);
  }
  return merged;
}
