import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { HAL_CONTENT_TYPE, type Json } from './operations.js';

/** A representation as it is sent (its JSON text) and its entity tag, the digest of that text. */
export interface Tagged<T> {
  json: Json<T>;
  tag: string;
}

/**
 * The strong entity tag of a representation: `"<row version>-<digest>"`. The version moves at every
 * write of the row (migration 005), so a change and its undo still give a new tag; the digest of the
 * representation covers what the row does not hold: links built for this caller and base URL, and
 * computed fields (`queuePosition`). So the tag changes whenever the body a caller would get changes.
 * The JSON text is made once, hashed, and is what the response sends (not serialised again).
 */
export function tagged<T>(version: number, representation: T): Tagged<T> {
  const json = JSON.stringify(representation) as Json<T>;
  const digest = createHash('sha256').update(json).digest('base64url');
  return { json, tag: `"${version}-${digest.slice(0, 16)}"` };
}

/** The entity tag alone (a precondition compared with the current representation). */
export function entityTag(version: number, representation: unknown): string {
  return tagged(version, representation).tag;
}

/** Sends a representation as HAL with its ETag (a create or a write's answer); returns its JSON. */
export function sendTagged<T>(reply: FastifyReply, version: number, representation: T): Json<T> {
  const { json, tag } = tagged(version, representation);
  reply.type(HAL_CONTENT_TYPE).header('etag', tag);
  return json;
}

interface ParsedTag {
  weak: boolean;
  /** The quoted opaque tag, quotes included. */
  opaque: string;
}

// RFC 9110 entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, in a comma-separated list (empty members allowed).
const LIST_MEMBER = /[ \t]*(?:(W\/)?("[\x21\x23-\x7E\x80-\xFF]*"))?[ \t]*(?:,|$)/y;

/** `*`, the entity tags of the list, or undefined when the value is not a list of entity tags. */
function parseTags(value: string): '*' | ParsedTag[] | undefined {
  if (value.trim() === '*') return '*';
  const tags: ParsedTag[] = [];
  LIST_MEMBER.lastIndex = 0;
  while (LIST_MEMBER.lastIndex < value.length) {
    const start = LIST_MEMBER.lastIndex;
    const match = LIST_MEMBER.exec(value);
    if (match === null || LIST_MEMBER.lastIndex === start) return undefined;
    if (match[2] !== undefined) tags.push({ weak: match[1] !== undefined, opaque: match[2] });
  }
  return tags;
}

const headerOf = (request: FastifyRequest, name: 'if-match' | 'if-none-match') => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** Whether the request carries a precondition this service evaluates (If-Match, If-None-Match). */
export function hasPreconditions(request: FastifyRequest): boolean {
  return headerOf(request, 'if-match') !== undefined || headerOf(request, 'if-none-match') !== undefined;
}

/** The caller's header value is not echoed: it can be kilobytes of anything. */
function failed(header: 'If-Match' | 'If-None-Match', current: string): AppError {
  const detail =
    header === 'If-Match'
      ? `If-Match does not hold the current ETag ${current}: the resource changed since you read it. Read it again and repeat your change on the current version.`
      : `If-None-Match holds the current ETag ${current}.`;
  return new AppError('precondition_failed', 'PRECONDITION_FAILED', detail);
}

export interface Evaluation {
  /** If-None-Match matched on GET or HEAD: answer 304 with the ETag and no body. */
  notModified: boolean;
  /**
   * The precondition compared an entity tag (not `*`), so the write must be conditional on the state
   * it was compared with: the caller passes the current row version to a conditional UPDATE/DELETE.
   */
  comparedTags: boolean;
}

/**
 * RFC 9110 section 13.2.2 for a resource that exists and whose current representation has the tag
 * `current`: If-Match (strong comparison; `*` matches any current representation), then If-None-Match
 * (weak comparison; `*` matches too). A false If-Match, or a false If-None-Match on a method other
 * than GET and HEAD, throws PRECONDITION_FAILED (412). Dates (If-Unmodified-Since, If-Modified-Since)
 * are not evaluated: the service sends no Last-Modified. A value that is not a list of entity tags
 * matches nothing.
 */
export function evaluatePreconditions(request: FastifyRequest, current: string): Evaluation {
  const safe = request.method === 'GET' || request.method === 'HEAD';
  let comparedTags = false;
  const ifMatch = headerOf(request, 'if-match');
  if (ifMatch !== undefined) {
    const tags = parseTags(ifMatch);
    if (tags !== '*') {
      comparedTags = true;
      const matches = (tags ?? []).some((tag) => !tag.weak && tag.opaque === current);
      if (!matches) throw failed('If-Match', current);
    }
  }
  const ifNoneMatch = headerOf(request, 'if-none-match');
  if (ifNoneMatch !== undefined) {
    const tags = parseTags(ifNoneMatch);
    if (tags !== '*') comparedTags = true;
    const matches = tags === '*' || (tags ?? []).some((tag) => tag.opaque === current);
    if (matches) {
      if (safe) return { notModified: true, comparedTags };
      throw failed('If-None-Match', current);
    }
  }
  return { notModified: false, comparedTags };
}

/**
 * The version a conditional write must still find, or undefined for an unconditional one (no
 * precondition, or only `If-Match: *`). With a precondition, the current representation is read (a
 * missing resource answers 404, as it would without one) and the precondition evaluated against its
 * tag (412 when false); the write then carries the version read, so it changes nothing when another
 * write came in between (the repository's `where id = $1 and version = $2`).
 */
export async function versionForConditionalWrite<T extends { version: number }>(
  request: FastifyRequest,
  readCurrent: () => Promise<T>,
  tagOf: (current: T) => string,
): Promise<number | undefined> {
  if (!hasPreconditions(request)) return undefined;
  const current = await readCurrent();
  return evaluatePreconditions(request, tagOf(current)).comparedTags ? current.version : undefined;
}

/**
 * A GET of a versioned resource: sends its ETag, and answers 304 with no body when If-None-Match holds
 * that tag; otherwise the resource, as HAL.
 */
export function conditionalGet<R>(
  request: FastifyRequest,
  reply: FastifyReply,
  version: number,
  resource: R,
): Json<R> | undefined {
  const { json, tag } = tagged(version, resource);
  reply.header('etag', tag);
  if (evaluatePreconditions(request, tag).notModified) {
    reply.code(304);
    return undefined;
  }
  reply.type(HAL_CONTENT_TYPE);
  return json;
}
