// Type-only: a Handler is the key the checks are found by, nothing of routing runs here.
import type { Handler } from '../route-tree/handler.js';
import { describeMismatch, type HandlerChecks, type SchemaCompiler } from './validators.js';

/** The frame a client sends, as the WebSocket interface has parsed it (JSON with a `path` string). */
export interface Frame {
  readonly path: string;
  readonly method?: unknown;
  readonly body?: unknown;
  readonly headers?: unknown;
  readonly uuid?: unknown;
}

/** `null` for a good frame, else why it is refused (the body of its 400 reply frame). */
export type MessageCheck = (frame: Frame) => string | null;

/** The frame `{path, method, body, headers, uuid}` as the AsyncAPI document describes it. */
const FRAME_SCHEMA = {
  type: 'object',
  required: ['path'],
  properties: {
    path: { type: 'string', pattern: '^/' },
    method: { type: 'string', pattern: '^[A-Za-z]+$' },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    uuid: { type: 'string' },
  },
};

/**
 * Checks a frame's envelope, then its body against the request body schema of the handler it
 * addresses (found by `handlerFor`, the dispatcher's own routing). A frame for no handler passes:
 * dispatching it gives the usual 404 or 501.
 */
export function messageCheck(
  compiler: SchemaCompiler,
  checks: ReadonlyMap<Handler, HandlerChecks>,
  handlerFor: (method: string, path: string) => Handler | undefined,
): MessageCheck {
  const envelope = compiler.compile(FRAME_SCHEMA);
  return (frame) => {
    const bad = envelope(frame);
    if (bad !== null) return `the frame does not match its schema at ${describeMismatch(bad)}`;
    if (frame.body === undefined) return null;
    const method = typeof frame.method === 'string' ? frame.method.toUpperCase() : 'GET';
    const handler = handlerFor(method, frame.path.split('?')[0] as string);
    const check = handler === undefined ? undefined : checks.get(handler)?.request;
    const mismatch = check?.(frame.body) ?? null;
    return mismatch === null
      ? null
      : `the frame's body does not match its schema at ${describeMismatch(mismatch)}`;
  };
}
