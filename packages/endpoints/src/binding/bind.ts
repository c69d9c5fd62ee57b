import { CallError } from '../errors.js';
import { type CastFn, type CastTable, compileCast, isParamRule } from './casts.js';
import type { Signature } from './signature.js';

/**
 * What binding needs about one handler, computed once at load so a request only walks arrays.
 * Statuses follow the reference: positional problems → 404, keyword problems → 400.
 */
export interface BindingPlan {
  readonly label: string;
  readonly signature: Signature;
  /**
   * Where a keyword goes, by name: the index of the positional parameter it fills, or
   * KEYWORD_PARAMETER for a key of the keyword object. One lookup per keyword a request sends.
   */
  readonly keywordTargets: ReadonlyMap<string, number>;
  readonly maxPositionals: number;
  readonly minPositionals: number;
  /** Casts by positional index (with the names their errors use), then by keyword name. */
  readonly positionalCasts: readonly (CastFn | undefined)[] | null;
  readonly positionalNames: readonly string[];
  /** Parallel lists rather than a Map: a request walks them with no iterator to allocate. */
  readonly keywordCastNames: readonly string[];
  readonly keywordCasts: readonly CastFn[];
  /** Other keyword names arguments answer to (`param({ names })`), alias → name; null without any. */
  readonly aliases: ReadonlyMap<string, string> | null;
  /** Names of the keyword-only parameters without a default. */
  readonly requiredKeywords: readonly string[];
  /** True when nothing about the arguments needs awaiting or casting: the common, fast case. */
  readonly plain: boolean;
  /**
   * True when binding never writes to the argument list unless keywords arrive (plain, no keyword
   * object, no rest), so a request without keywords can hand its positionals over uncopied.
   */
  readonly uncopied: boolean;
  /**
   * Every keyword name binding answers to (keyword parameters, named positionals, aliases). The
   * query parser matches them in place, so a request's keys are these very strings rather than new
   * slices, which V8 would look up in its string table at every store and lookup.
   */
  readonly knownNames: readonly string[];
}

export type Keywords = Record<string, unknown>;

/**
 * Keyword objects inherit from an empty object that itself has no prototype: as with
 * `Object.create(null)`, no key (`toString`, `__proto__`) is inherited or special, but V8 keeps
 * these objects in its fast property layout, where `Object.create(null)` makes a hash table (about
 * 150 ns more per request with three keywords, to build, bind and destructure them).
 */
const KeywordObject = function KeywordObject() {} as unknown as new () => Keywords;
KeywordObject.prototype = Object.create(null);

/** The prototype every keyword object has, so renderers can treat them as plain data. */
export const KEYWORDS_PROTOTYPE: object = KeywordObject.prototype;

/** An empty keyword object (see KeywordObject). */
export function newKeywords(): Keywords {
  return new KeywordObject();
}

/** In `keywordTargets`: the name is a key of the handler's keyword object. */
const KEYWORD_PARAMETER = -1;

export function planBinding(
  label: string,
  signature: Signature,
  casts: CastTable[string] | undefined,
): BindingPlan {
  const positionIndex = new Map<string, number>();
  signature.positionals.forEach((param, index) => {
    if (param.name !== null) positionIndex.set(param.name, index);
  });
  let minPositionals = 0;
  signature.positionals.forEach((param, index) => {
    if (param.required) minPositionals = index + 1;
  });
  let positionalCasts: (CastFn | undefined)[] | null = null;
  const keywordCastNames: string[] = [];
  const keywordCasts: CastFn[] = [];
  let aliases: Map<string, string> | null = null;
  for (const [name, cast] of Object.entries(casts ?? {})) {
    if (isParamRule(cast)) {
      for (const alias of cast.names ?? []) {
        aliases ??= new Map();
        aliases.set(alias, name);
      }
    }
    const compiled = compileCast(cast, `${label} cast for '${name}'`);
    const index = positionIndex.get(name);
    if (index !== undefined) {
      positionalCasts ??= [];
      positionalCasts[index] = compiled;
    } else {
      keywordCastNames.push(name);
      keywordCasts.push(compiled);
    }
  }
  const plain = positionalCasts === null && keywordCasts.length === 0 && aliases === null;
  return {
    label,
    signature,
    keywordTargets: new Map([
      ...[...(signature.keywords?.names.keys() ?? [])].map((name) => [name, KEYWORD_PARAMETER] as const),
      ...positionIndex,
    ]),
    maxPositionals: signature.rest ? Number.POSITIVE_INFINITY : signature.positionals.length,
    minPositionals,
    positionalCasts,
    positionalNames: signature.positionals.map((param, index) => param.name ?? `#${index + 1}`),
    keywordCastNames,
    keywordCasts,
    aliases,
    requiredKeywords: [...(signature.keywords?.names ?? [])].flatMap(([name, required]) =>
      required ? [name] : [],
    ),
    plain,
    uncopied: plain && signature.keywords === null && !signature.rest,
    knownNames: [
      ...new Set([
        ...(signature.keywords?.names.keys() ?? []),
        ...positionIndex.keys(),
        ...(aliases?.keys() ?? []),
      ]),
    ],
  };
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * Turns path positionals and keywords into the handler's argument list, or throws a CallError with
 * the reference's status. Keywords are bound first, as CPython does, so an unknown keyword plus extra
 * path segments gives 400, not 404. Casts may make the result a promise (async Standard Schemas).
 */
export function bindArguments(
  plan: BindingPlan,
  positionals: unknown[],
  keywords: Keywords | null,
): unknown[] | Promise<unknown[]> {
  const { signature, label } = plan;
  const slots =
    keywords === null && plan.uncopied && positionals.length <= signature.positionals.length
      ? positionals
      : positionals.slice(0, signature.positionals.length);
  const keywordSpec = signature.keywords;
  const keywordObject: Keywords | null = keywordSpec ? new KeywordObject() : null;

  if (keywords !== null) {
    for (const given in keywords) {
      const value = keywords[given];
      const name = plan.aliases?.get(given) ?? given;
      if (name !== given && keywords[name] !== undefined) {
        throw new CallError(400, `${label}() got multiple values for argument '${name}'`);
      }
      const target = plan.keywordTargets.get(name);
      if (target === KEYWORD_PARAMETER || (target === undefined && keywordSpec?.rest)) {
        (keywordObject as Keywords)[name] = value;
      } else if (target === undefined) {
        throw new CallError(400, `${label}() got an unexpected keyword argument '${name}'`);
      } else {
        if (target < positionals.length) {
          throw new CallError(400, `${label}() got multiple values for argument '${name}'`);
        }
        slots[target] = value;
      }
    }
  }

  if (positionals.length > plan.maxPositionals) {
    const max = plan.maxPositionals;
    const takes =
      plan.minPositionals === max
        ? `takes ${plural(max, 'positional argument')}`
        : `takes from ${plan.minPositionals} to ${plural(max, 'positional argument')}`;
    throw new CallError(
      404,
      `${label}() ${takes} but ${positionals.length} ${positionals.length === 1 ? 'was' : 'were'} given`,
    );
  }

  if (plan.minPositionals > 0) {
    let missing: string[] | null = null;
    for (let i = 0; i < plan.minPositionals; i += 1) {
      const param = signature.positionals[i];
      if (param?.required && slots[i] === undefined) {
        missing ??= [];
        missing.push(`'${param.name ?? `#${i + 1}`}'`);
      }
    }
    if (missing !== null) {
      throw new CallError(
        404,
        `${label}() missing ${plural(missing.length, 'required positional argument')}: ${missing.join(', ')}`,
      );
    }
  }

  const required = plan.requiredKeywords;
  if (required.length > 0) {
    let missing: string[] | null = null;
    for (let i = 0; i < required.length; i += 1) {
      const name = required[i] as string;
      if ((keywordObject as Keywords)[name] === undefined) {
        missing ??= [];
        missing.push(`'${name}'`);
      }
    }
    if (missing !== null) {
      throw new CallError(
        400,
        `${label}() missing ${plural(missing.length, 'required keyword-only argument')}: ${missing.join(', ')}`,
      );
    }
  }

  if (!plan.plain) {
    const pending = applyCasts(plan, slots, keywordObject);
    if (pending) {
      return pending.then(() => assemble(signature, slots, positionals, keywordObject));
    }
  }
  return assemble(signature, slots, positionals, keywordObject);
}

function assemble(
  signature: Signature,
  slots: unknown[],
  positionals: unknown[],
  keywordObject: Keywords | null,
): unknown[] {
  const count = signature.positionals.length;
  // Unfilled optional slots stay undefined, so the handler's defaults apply. Setting an array's
  // length is a call into V8's runtime even when nothing changes, so only a short list is grown.
  if ((keywordObject !== null || signature.rest) && slots.length !== count) slots.length = count;
  if (keywordObject !== null) slots.push(keywordObject);
  if (signature.rest) for (let i = count; i < positionals.length; i += 1) slots.push(positionals[i]);
  return slots;
}

/**
 * Casts in place; returns a promise when a Standard Schema validates asynchronously. Plain loops
 * and no closure unless a cast is asynchronous: this runs for every request to a method with casts.
 */
function applyCasts(plan: BindingPlan, slots: unknown[], keywords: Keywords | null): Promise<void> | null {
  let pending: Promise<unknown>[] | null = null;
  const positionalCasts = plan.positionalCasts;
  if (positionalCasts !== null) {
    for (let index = 0; index < positionalCasts.length; index += 1) {
      const cast = positionalCasts[index];
      const value = slots[index];
      if (cast === undefined || value === undefined) continue;
      const result = cast(value, plan.positionalNames[index] as string);
      if (result instanceof Promise) {
        pending ??= [];
        pending.push(
          result.then((settled) => {
            slots[index] = settled;
          }),
        );
      } else {
        slots[index] = result;
      }
    }
  }
  if (keywords !== null) {
    const names = plan.keywordCastNames;
    for (let index = 0; index < names.length; index += 1) {
      const name = names[index] as string;
      const value = keywords[name];
      if (value === undefined) continue;
      const result = (plan.keywordCasts[index] as CastFn)(value, name);
      if (result instanceof Promise) {
        pending ??= [];
        pending.push(
          result.then((settled) => {
            keywords[name] = settled;
          }),
        );
      } else {
        keywords[name] = result;
      }
    }
  }
  return pending === null ? null : Promise.all(pending).then(() => undefined);
}
