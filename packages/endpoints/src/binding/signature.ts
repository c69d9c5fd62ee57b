import type { Node, Pattern } from 'acorn';
import { parse, tokenizer } from 'acorn';
import { EndpointsError } from '../errors.js';

/**
 * A handler's parameter list, read once at load with acorn:
 * - plain parameters are positional (Python's positional-or-keyword), required unless they have a default;
 * - a rest parameter is `*args`;
 * - a destructured object that is the last parameter, or that sits just before the rest parameter,
 *   declares the keywords: its keys are keyword-only names (required unless defaulted), its `...rest`
 *   is `**kwargs`.
 */
export interface Signature {
  readonly positionals: readonly PositionalParam[];
  readonly rest: boolean;
  readonly keywords: KeywordParam | null;
}

export interface PositionalParam {
  /** null for a destructured positional, which no keyword can fill. */
  readonly name: string | null;
  readonly required: boolean;
  /** The default when it is written as a JSON literal (`limit = 100`), for documentation. */
  readonly default?: unknown;
}

export interface KeywordParam {
  /** Position of the keyword object among the parameters. */
  readonly index: number;
  /** Keyword-only names and whether each is required. */
  readonly names: ReadonlyMap<string, boolean>;
  /** Whether unknown keywords are collected (`...rest` in the object). */
  readonly rest: boolean;
  /** Defaults written as JSON literals (`{ limit = 100 }`), for documentation. */
  readonly defaults: ReadonlyMap<string, unknown>;
}

/** Any function: handlers and wrappers of any shape. */
type AnyFunction = (...args: never) => unknown;

const ORIGINAL_HANDLER = Symbol.for('@platform/endpoints.originalHandler');

/** Marks `wrapper` as standing for `original`, so binding reads the original's parameter list. */
export function keepSignature<T extends object>(wrapper: T, original: AnyFunction): T {
  Object.defineProperty(wrapper, ORIGINAL_HANDLER, { value: original });
  return wrapper;
}

/** `fn`, then each function it stands for (see `keepSignature`), outermost first. */
export function* wrapperChain(fn: AnyFunction): Generator<AnyFunction> {
  let current: AnyFunction | undefined = fn;
  while (current) {
    yield current;
    current = (current as unknown as Record<symbol, AnyFunction | undefined>)[ORIGINAL_HANDLER];
  }
}

/** The original handler behind any wrappers. */
export function unwrap(fn: AnyFunction): AnyFunction {
  let original = fn;
  for (const inner of wrapperChain(fn)) original = inner;
  return original;
}

/** Reads the parameter list of `fn`; `label` (e.g. `Foo.GET in users.ts`) names it in errors. */
export function readSignature(fn: AnyFunction, label: string): Signature {
  const source = Function.prototype.toString.call(unwrap(fn));
  if (source.includes('[native code]')) {
    throw new EndpointsError(
      'SIGNATURE_UNREADABLE',
      `${label}: the handler is a native or bound function, so its parameters cannot be read; define it as a method or a plain function`,
    );
  }
  let params: Pattern[];
  try {
    params = parseParams(source);
  } catch (error) {
    throw new EndpointsError(
      'SIGNATURE_UNREADABLE',
      `${label}: cannot read the parameter list (${(error as Error).message})`,
      { cause: error },
    );
  }
  return describe(params, label);
}

/**
 * Finds the parameter list's parentheses with acorn's tokenizer (which understands strings, templates
 * and regular expressions in default values), then parses just that list. The body is never read.
 */
function parseParams(source: string): Pattern[] {
  const names: string[] = [];
  let bracketDepth = 0;
  let parenDepth = 0;
  let listStart = -1;
  for (const token of tokenizer(source, { ecmaVersion: 'latest' })) {
    const label = token.type.label;
    if (listStart === -1) {
      if (label === '=>' && names.length > 0) return parseList(names.at(-1) as string);
      if (label === 'name') names.push(source.slice(token.start, token.end));
      else if (label === '[') bracketDepth += 1;
      else if (label === ']') bracketDepth -= 1;
      else if (label === '(' && bracketDepth === 0) {
        listStart = token.end;
        parenDepth = 1;
      }
      continue;
    }
    if (label === '(') parenDepth += 1;
    else if (label === ')') {
      parenDepth -= 1;
      if (parenDepth === 0) return parseList(source.slice(listStart, token.start));
    }
  }
  throw new Error('no parameter list found');
}

function parseList(list: string): Pattern[] {
  const program = parse(`(function (${list}) {})`, { ecmaVersion: 'latest' }) as unknown as {
    body: [{ expression: { params: Pattern[] } }];
  };
  return program.body[0].expression.params;
}

function describe(params: Pattern[], label: string): Signature {
  const last = params.at(-1);
  const rest = last?.type === 'RestElement';
  const keywordIndex = rest ? params.length - 2 : params.length - 1;
  const keywordNode = params[keywordIndex];
  const keywordPattern = keywordNode && objectPattern(keywordNode);
  const positionalEnd = keywordPattern ? keywordIndex : rest ? params.length - 1 : params.length;

  const positionals: PositionalParam[] = params.slice(0, positionalEnd).map((param) => {
    if (param.type === 'Identifier') return { name: param.name, required: true };
    if (param.type === 'AssignmentPattern') {
      const name = param.left.type === 'Identifier' ? param.left.name : null;
      const literal = literalValue(param.right);
      return literal === NOT_LITERAL
        ? { name, required: false }
        : { name, required: false, default: literal };
    }
    return { name: null, required: true };
  });

  let keywords: KeywordParam | null = null;
  if (keywordPattern) {
    const names = new Map<string, boolean>();
    const defaults = new Map<string, unknown>();
    let kwrest = false;
    for (const property of keywordPattern.properties) {
      if (property.type === 'RestElement') {
        kwrest = true;
        continue;
      }
      const key = propertyKey(property.key, property.computed);
      if (key === null) {
        throw new EndpointsError(
          'SIGNATURE_UNREADABLE',
          `${label}: a computed key in the keyword object cannot be bound; use a plain name`,
        );
      }
      names.set(key, property.value.type !== 'AssignmentPattern');
      if (property.value.type === 'AssignmentPattern') {
        const literal = literalValue(property.value.right);
        if (literal !== NOT_LITERAL) defaults.set(key, literal);
      }
    }
    keywords = { index: keywordIndex, names, rest: kwrest, defaults };
  }
  return { positionals, rest, keywords };
}

const NOT_LITERAL = Symbol('not a literal');

/**
 * The value of a default written as JSON (a string, number, boolean, null, or an array or object of
 * those); `undefined` and anything computed are not documented defaults.
 */
function literalValue(node: Node): unknown {
  const any = node as unknown as Record<string, unknown> & { type: string };
  switch (any.type) {
    case 'Literal':
      return any.regex || typeof any.value === 'bigint' ? NOT_LITERAL : any.value;
    case 'UnaryExpression': {
      const inner = literalValue(any.argument as Node);
      return any.operator === '-' && typeof inner === 'number' ? -inner : NOT_LITERAL;
    }
    case 'TemplateLiteral': {
      const quasis = any.quasis as { value: { cooked: string } }[];
      return (any.expressions as unknown[]).length === 0 ? quasis[0]?.value.cooked : NOT_LITERAL;
    }
    case 'ArrayExpression': {
      const items = (any.elements as (Node | null)[]).map((item) =>
        item ? literalValue(item) : NOT_LITERAL,
      );
      return items.includes(NOT_LITERAL) ? NOT_LITERAL : items;
    }
    case 'ObjectExpression': {
      const result: Record<string, unknown> = {};
      for (const property of any.properties as Record<string, unknown>[]) {
        const key =
          property.type === 'Property'
            ? propertyKey(property.key as Node, property.computed as boolean)
            : null;
        const value = key === null ? NOT_LITERAL : literalValue(property.value as Node);
        if (value === NOT_LITERAL) return NOT_LITERAL;
        result[key as string] = value;
      }
      return result;
    }
    default:
      return NOT_LITERAL;
  }
}

function objectPattern(param: Pattern) {
  if (param.type === 'ObjectPattern') return param;
  if (param.type === 'AssignmentPattern' && param.left.type === 'ObjectPattern') return param.left;
  return null;
}

function propertyKey(key: Node, computed: boolean): string | null {
  if (computed) return null;
  if (key.type === 'Identifier') return (key as unknown as { name: string }).name;
  if (key.type === 'Literal') return String((key as unknown as { value: unknown }).value);
  return null;
}
