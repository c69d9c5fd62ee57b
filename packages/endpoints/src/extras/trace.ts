import type { Controller } from '../controller.js';
import type { HandlerFunction } from './decorate.js';

/**
 * The reference's TRACEMixin.TRACE: the request line and headers as `message/http`. Any arguments
 * are accepted.
 */
function TRACE(this: Controller, { ...keywords } = {}, ...args: unknown[]): string {
  void keywords;
  void args;
  const request = this.request;
  this.response.mediaType = 'message/http';
  const lines = [`${request.method} ${request.target} ${request.protocol}`];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  return lines.join('\n');
}

/** A class with `static trace = true` answers TRACE, unless it has its own. */
export function withTrace(
  option: boolean | undefined,
  methods: ReadonlyMap<string, HandlerFunction>,
): ReadonlyMap<string, HandlerFunction> {
  if (!option || methods.has('TRACE')) return methods;
  return new Map([...methods, ['TRACE', TRACE]]);
}
