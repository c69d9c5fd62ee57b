import type { StandardSchemaV1 } from '@standard-schema/spec';
import { CallError, EndpointsError } from '../errors.js';

/**
 * Per-argument coercion, the counterpart of the reference's "the annotation is a callable":
 * - `Number`: a finite number (an empty or non-numeric string fails);
 * - `Boolean`: `true`/`1` → true, `false`/`0` → false, anything else fails (the reference's truthiness
 *   quirk is not copied);
 * - `String`: the value as a string;
 * - `[T]`: a list; strings are split on `,`, repeated keys are joined, each item is cast with `T`;
 * - any other function `(raw) => value`: its return value, a throw fails with the thrown message;
 * - a Standard Schema (zod, valibot, arktype, …): its validated output, issues fail.
 * Every failure answers 400 with the message.
 */
export type Cast = ((raw: never) => unknown) | readonly [Cast] | StandardSchemaV1;

/** `static types = { GET: { page: Number, tags: [String] } }` on a controller class. */
export type CastTable = Record<string, Record<string, Cast>>;

export type CastFn = (value: unknown, name: string) => unknown;

export function compileCast(cast: Cast, where: string): CastFn {
  if (Array.isArray(cast)) {
    if (cast.length !== 1) {
      throw new EndpointsError(
        'INVALID_CAST',
        `${where}: a list cast is written [T] with exactly one item cast`,
      );
    }
    const item = compileCast(cast[0] as Cast, where);
    return (value, name) => splitList(value).map((part) => item(part, name));
  }
  if (isStandardSchema(cast)) return (value, name) => validateSchema(cast, value, name);
  if (cast === Number) return toNumber;
  if (cast === Boolean) return toBoolean;
  if (cast === String) return (value) => (typeof value === 'string' ? value : String(value));
  if (typeof cast === 'function') {
    const fn = cast as (raw: unknown) => unknown;
    return (value, name) => {
      try {
        return fn(value);
      } catch (error) {
        throw castFailure(name, (error as Error)?.message ?? String(error));
      }
    };
  }
  throw new EndpointsError(
    'INVALID_CAST',
    `${where}: a cast must be a function, [T] or a Standard Schema (got ${typeof cast})`,
  );
}

function castFailure(name: string, reason: string): CallError {
  return new CallError(400, `argument '${name}': ${reason}`);
}

function toNumber(value: unknown, name: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const number = Number(value);
    if (Number.isFinite(number)) return number;
  }
  throw castFailure(name, `expected a number, got ${JSON.stringify(value)}`);
}

function toBoolean(value: unknown, name: string): boolean {
  if (value === true || value === 'true' || value === 'True' || value === '1' || value === 1) return true;
  if (value === false || value === 'false' || value === 'False' || value === '0' || value === 0) return false;
  throw castFailure(name, `expected true, false, 1 or 0, got ${JSON.stringify(value)}`);
}

function splitList(value: unknown): unknown[] {
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((item) => (typeof item === 'string' ? item.split(',') : [item]));
}

function isStandardSchema(cast: unknown): cast is StandardSchemaV1 {
  return typeof cast === 'object' && cast !== null && '~standard' in cast;
}

function validateSchema(schema: StandardSchemaV1, value: unknown, name: string): unknown {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) return result.then((settled) => schemaOutput(settled, name));
  return schemaOutput(result, name);
}

function schemaOutput(result: StandardSchemaV1.Result<unknown>, name: string): unknown {
  if (!result.issues) return result.value;
  const reasons = result.issues.map((issue) => {
    const path = issue.path?.map((part) => (typeof part === 'object' ? part.key : part)).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  throw castFailure(name, reasons.join('; '));
}
