import { parse } from 'acorn';
import { unwrap } from '../binding/signature.js';

/** The statuses a handler's own code shows it may answer. */
export interface Outcomes {
  /** Success statuses: 200 for a returned value, 204 for none, or the `this.response.code` it sets. */
  readonly success: readonly number[];
  /** Statuses of errors it throws with a literal code (`new CallError(404, …)`, `new AccessDenied()`). */
  readonly errors: readonly number[];
}

interface AstNode {
  readonly type: string;
  readonly [key: string]: unknown;
}

const FUNCTION_TYPES = new Set(['FunctionExpression', 'FunctionDeclaration', 'ArrowFunctionExpression']);

/** Parses a function's source, whether it is a method (`GET() {}`), a function or an arrow. */
function parseFunction(source: string): AstNode | null {
  const attempts = [
    () =>
      (parse(`(class { ${source} })`, { ecmaVersion: 'latest' }) as unknown as ClassProgram).body[0]
        .expression.body.body[0]?.value,
    () =>
      (parse(`({ ${source} })`, { ecmaVersion: 'latest' }) as unknown as ObjectProgram).body[0].expression
        .properties[0]?.value,
    () =>
      (parse(`(${source})`, { ecmaVersion: 'latest' }) as unknown as ExpressionProgram).body[0].expression,
  ];
  for (const attempt of attempts) {
    try {
      const node = attempt();
      if (node && FUNCTION_TYPES.has(node.type)) return node;
    } catch {
      // Not this shape; try the next.
    }
  }
  return null;
}

type ClassProgram = { body: [{ expression: { body: { body: { value?: AstNode }[] } } }] };
type ObjectProgram = { body: [{ expression: { properties: { value?: AstNode }[] } }] };
type ExpressionProgram = { body: [{ expression: AstNode }] };

function children(node: AstNode): AstNode[] {
  const found: AstNode[] = [];
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item === 'object' && 'type' in item) found.push(item);
    } else if (value && typeof value === 'object' && 'type' in value) found.push(value as AstNode);
  }
  return found;
}

const numberLiteral = (node: unknown): number | undefined => {
  const literal = node as AstNode | undefined;
  return literal?.type === 'Literal' && typeof literal.value === 'number' ? literal.value : undefined;
};

function isThisResponseCode(node: AstNode): boolean {
  const object = node.object as AstNode | undefined;
  return (
    node.type === 'MemberExpression' &&
    (node.property as AstNode).name === 'code' &&
    object?.type === 'MemberExpression' &&
    (object.object as AstNode).type === 'ThisExpression' &&
    (object.property as AstNode).name === 'response'
  );
}

const isEmpty = (node: AstNode | null) =>
  node === null ||
  (node.type === 'Identifier' && node.name === 'undefined') ||
  (node.type === 'Literal' && node.value === null);

type Fn = (...args: never) => unknown;

/**
 * Parses many method sources (`GET(id) {…}`, the usual shape) as one class body: acorn's cost is
 * mostly setting up a parser, so one parse of 400 methods is several times faster than 400 parses.
 * Null when any source is not a plain method; the caller then parses them one by one.
 */
function parseMethods(sources: readonly string[]): AstNode[] | null {
  try {
    const program = parse(`(class {\n${sources.join('\n')}\n})`, {
      ecmaVersion: 'latest',
    }) as unknown as ClassProgram;
    const members = program.body[0].expression.body.body.map((member) => member.value);
    if (members.length !== sources.length) return null;
    return members.every((member) => member && FUNCTION_TYPES.has(member.type))
      ? (members as AstNode[])
      : null;
  } catch {
    return null;
  }
}

/**
 * Reads the statuses from each handler's code (when the document is generated): value returns,
 * empty returns or falling off the end, literal `this.response.code = N`, and errors thrown with
 * literal codes. Code it cannot parse is assumed to answer 200.
 */
export function handlerOutcomes(fns: readonly Fn[]): Map<Fn, Outcomes> {
  const sources = fns.map((fn) => Function.prototype.toString.call(unwrap(fn)));
  const methodShaped = (source: string) => !/^(?:async\s+)?(?:function\b|\(|[\w$]+\s*=>)/.test(source);
  const batch = sources.flatMap((source, index) => (methodShaped(source) ? [index] : []));
  const parsed = parseMethods(batch.map((index) => sources[index] as string));
  const roots = new Map<number, AstNode | null>();
  if (parsed) {
    batch.forEach((sourceIndex, position) => {
      roots.set(sourceIndex, parsed[position] ?? null);
    });
  }
  const outcomes = new Map<Fn, Outcomes>();
  fns.forEach((fn, index) => {
    const root = roots.has(index) ? (roots.get(index) ?? null) : parseFunction(sources[index] as string);
    outcomes.set(fn, root ? readOutcomes(root) : { success: [200], errors: [] });
  });
  return outcomes;
}

function readOutcomes(root: AstNode): Outcomes {
  let valueReturn = root.generator === true || root.expression === true;
  let emptyReturn = false;
  const codes = new Set<number>();
  const errors = new Set<number>();
  const visit = (node: AstNode) => {
    if (node !== root && FUNCTION_TYPES.has(node.type)) return;
    if (node.type === 'ReturnStatement') {
      if (isEmpty(node.argument as AstNode | null)) emptyReturn = true;
      else valueReturn = true;
    } else if (node.type === 'AssignmentExpression' && isThisResponseCode(node.left as AstNode)) {
      const code = numberLiteral(node.right);
      if (code !== undefined) codes.add(code);
    } else if (node.type === 'NewExpression') {
      const args = node.arguments as AstNode[];
      switch ((node.callee as AstNode).name) {
        case 'CallError': {
          const code = args.length === 0 ? 500 : numberLiteral(args[0]);
          if (code !== undefined) errors.add(code);
          break;
        }
        case 'AccessDenied':
          errors.add(401);
          break;
        case 'Redirect':
          codes.add(args.length < 2 ? 302 : (numberLiteral(args[1]) ?? 302));
          break;
        case 'CallStop':
          codes.add(args.length === 0 ? 200 : (numberLiteral(args[0]) ?? 200));
          break;
      }
    }
    for (const child of children(node)) visit(child);
  };
  visit(root);
  // A generator's end is the end of its items, not an empty answer.
  if (root.expression !== true && root.generator !== true && fallsOffTheEnd(root.body as AstNode))
    emptyReturn = true;
  const success = new Set(codes);
  if (codes.size === 0) {
    if (valueReturn) success.add(200);
    if (emptyReturn || !valueReturn) success.add(204);
  }
  const ascending = (a: number, b: number) => a - b;
  return { success: [...success].sort(ascending), errors: [...errors].sort(ascending) };
}

/** Whether control can reach the end of a block: its last statement is not a return or a throw. */
function fallsOffTheEnd(block: AstNode): boolean {
  const last = (block.body as AstNode[]).at(-1);
  return last === undefined || (last.type !== 'ReturnStatement' && last.type !== 'ThrowStatement');
}
