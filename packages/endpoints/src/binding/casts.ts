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
export type Cast = ((raw: never) => unknown) | readonly [Cast] | StandardSchemaV1 | ParamRule;

/** The reference's `Annotated[T, {…}]` flags for one argument, made with `param({…})`. */
export interface ParamOptions {
  /** The cast applied after the checks below that read the raw value (default: none). */
  readonly type?: Cast;
  /** Other keyword names the argument answers to (the reference's `names`/`aliases`), e.g. `user_ids[]`. */
  readonly names?: readonly string[];
  /** The allowed values, compared after the cast. */
  readonly choices?: readonly unknown[];
  /** A pattern the raw string must match, checked before the cast. */
  readonly regex?: RegExp | string;
  /** Smallest allowed value: the number itself, else the length of a string or list. */
  readonly minSize?: number;
  /** Largest allowed value: the number itself, else the length of a string or list. */
  readonly maxSize?: number;
  /** Whether an empty value (`''`, an empty list) is accepted (default true). */
  readonly allowEmpty?: boolean;
}

const PARAM_RULE = Symbol.for('@platform/endpoints.param');

export interface ParamRule extends ParamOptions {
  readonly [PARAM_RULE]: true;
}

/**
 * Rules for one argument in `static types`, after the reference's parameter flags:
 * `static types = { GET: { ids: param({ type: [Number], names: ['ids[]'], maxSize: 10 }) } }`.
 * A failure answers 400 with the reference's message (`was empty`, `failed regex check`,
 * `value 'z' not in choices`, `was smaller than 2`, `was bigger than 4`).
 */
export function param(options: ParamOptions): ParamRule {
  return { ...options, [PARAM_RULE]: true };
}

export function isParamRule(cast: unknown): cast is ParamRule {
  return typeof cast === 'object' && cast !== null && (cast as ParamRule)[PARAM_RULE] === true;
}

/** `static types = { GET: { page: Number, tags: [String] } }` on a controller class. */
export type CastTable = Record<string, Record<string, Cast>>;

export type CastFn = (value: unknown, name: string) => unknown;

export function compileCast(cast: Cast, where: string): CastFn {
  if (isParamRule(cast)) return compileRule(cast, where);
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
  if (typeof value === 'string') {
    const number = Number(value);
    // Number() reads a blank string as 0, so only a 0 needs the string looked at again.
    if (Number.isFinite(number) && (number !== 0 || value.trim() !== '')) return number;
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

function sizeOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  return undefined;
}

function compileRule(rule: ParamRule, where: string): CastFn {
  const type = rule.type === undefined ? null : compileCast(rule.type, where);
  let regex: RegExp | null = null;
  if (rule.regex !== undefined) {
    try {
      regex = typeof rule.regex === 'string' ? new RegExp(rule.regex) : rule.regex;
    } catch (error) {
      throw new EndpointsError('INVALID_CAST', `${where}: regex is not valid: ${(error as Error).message}`);
    }
  }
  const choices = rule.choices;
  return (raw, name) => {
    if (rule.allowEmpty === false && (raw === '' || (Array.isArray(raw) && raw.length === 0))) {
      throw castFailure(name, 'was empty');
    }
    if (regex !== null) {
      for (const item of Array.isArray(raw) ? raw : [raw]) {
        regex.lastIndex = 0;
        if (typeof item !== 'string' || !regex.test(item)) throw castFailure(name, 'failed regex check');
      }
    }
    const finish = (value: unknown) => {
      if (choices !== undefined) {
        // A list is checked item by item, as the reference checks `list[Literal[…]]`.
        for (const item of Array.isArray(value) ? value : [value]) {
          if (!choices.includes(item)) {
            throw castFailure(
              name,
              `value ${JSON.stringify(item)} not in choices ${JSON.stringify(choices)}`,
            );
          }
        }
      }
      const size = sizeOf(value);
      if (size !== undefined && rule.minSize !== undefined && size < rule.minSize) {
        throw castFailure(name, `was smaller than ${rule.minSize}`);
      }
      if (size !== undefined && rule.maxSize !== undefined && size > rule.maxSize) {
        throw castFailure(name, `was bigger than ${rule.maxSize}`);
      }
      return value;
    };
    const value = type === null ? raw : type(raw, name);
    return value instanceof Promise ? value.then(finish) : finish(value);
  };
}
