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
}

export interface KeywordParam {
  /** Position of the keyword object among the parameters. */
  readonly index: number;
  /** Keyword-only names and whether each is required. */
  readonly names: ReadonlyMap<string, boolean>;
  /** Whether unknown keywords are collected (`...rest` in the object). */
  readonly rest: boolean;
}

/** Any function: handlers and wrappers of any shape. */
type AnyFunction = (...args: never) => unknown;

const ORIGINAL_HANDLER = Symbol.for('@platform/endpoints.originalHandler');

/** Marks `wrapper` as standing for `original`, so binding reads the original's parameter list. */
export function keepSignature<T extends object>(wrapper: T, original: AnyFunction): T {
  Object.defineProperty(wrapper, ORIGINAL_HANDLER, { value: original });
  return wrapper;
}

function unwrap(fn: AnyFunction): AnyFunction {
  let current = fn;
  for (;;) {
    const inner = (current as unknown as Record<symbol, AnyFunction | undefined>)[ORIGINAL_HANDLER];
    if (!inner) return current;
    current = inner;
  }
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
      return { name: param.left.type === 'Identifier' ? param.left.name : null, required: false };
    }
    return { name: null, required: true };
  });

  let keywords: KeywordParam | null = null;
  if (keywordPattern) {
    const names = new Map<string, boolean>();
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
    }
    keywords = { index: keywordIndex, names, rest: kwrest };
  }
  return { positionals, rest, keywords };
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
