import { wrapperChain } from '../binding/signature.js';

/**
 * What a decorator tells the documentation about the handler it wraps, since a wrapper's effect
 * cannot be read from its code: the authentication it demands and the statuses it may answer.
 */
export interface HandlerNotes {
  /** An HTTP authentication scheme (`basic`, `bearer`) the handler requires. */
  readonly auth?: string;
  /** Statuses the wrapper itself may answer (401 for the auth decorators). */
  readonly statuses?: readonly number[];
}

const NOTES = Symbol.for('@platform/endpoints.handlerNotes');

/** Attaches notes to a wrapper made by a decorator; returns the wrapper. */
export function annotate<T extends object>(wrapper: T, notes: HandlerNotes): T {
  Object.defineProperty(wrapper, NOTES, { value: notes });
  return wrapper;
}

/** The notes of every wrapper around a handler, outermost first. */
export function handlerNotes(fn: (...args: never) => unknown): HandlerNotes[] {
  const notes: HandlerNotes[] = [];
  for (const layer of wrapperChain(fn)) {
    const found = (layer as unknown as Record<symbol, HandlerNotes | undefined>)[NOTES];
    if (found) notes.push(found);
  }
  return notes;
}
