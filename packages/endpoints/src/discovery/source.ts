import { readFileSync } from 'node:fs';

/**
 * What a module's source says that its exports cannot: the doc comments above classes and handler
 * methods, and the classes it declares. Read with patterns, not a parser, because the files are
 * TypeScript (or compiled JavaScript) and only documentation depends on it.
 */
export interface ModuleNotes {
  /** Doc comment text by class name. */
  readonly classDocs: ReadonlyMap<string, string>;
  /** Doc comment text by `Class.METHOD`. */
  readonly methodDocs: ReadonlyMap<string, string>;
  /** Classes declared with `extends`, exported or not. */
  readonly declared: readonly string[];
}

const DOC = String.raw`/\*\*((?:[^*]|\*(?!/))*)\*/\s*`;
const DECORATORS = String.raw`(?:@[\w.$]+(?:\((?:[^()]|\([^()]*\))*\))?\s*)*`;
const CLASS_DOC = new RegExp(
  `${DOC}${DECORATORS}(?:export\\s+)?(?:default\\s+)?(?:abstract\\s+)?class\\s+([\\w$]+)`,
  'g',
);
const METHOD_DOC = new RegExp(
  `${DOC}${DECORATORS}(?:(?:static|async|public|protected|override|readonly)\\s+)*\\*?\\s*([A-Z]+)\\s*[(=]`,
  'g',
);
const CLASS = /\bclass\s+([A-Za-z_$][\w$]*)(\s+extends\b)?/g;

const cache = new Map<string, ModuleNotes>();

/** Turns a `/** … *\/` body into plain text: no leading stars, no `@tag` lines, trimmed. */
function docText(body: string): string {
  const lines = body.split('\n').map((line) => line.replace(/^\s*\*?\s?/, '').trimEnd());
  const end = lines.findIndex((line) => /^@\w/.test(line));
  return (end === -1 ? lines : lines.slice(0, end)).join('\n').trim();
}

export function readModuleNotes(file: string): ModuleNotes {
  const cached = cache.get(file);
  if (cached) return cached;
  let source = '';
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    // A module that was imported but cannot be read again simply has no notes.
  }
  // Class declarations are looked for outside comments (blanked, so positions still line up).
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, (comment) => ' '.repeat(comment.length));
  const classes: { name: string; start: number }[] = [];
  const declared: string[] = [];
  for (const match of code.matchAll(CLASS)) {
    classes.push({ name: match[1] as string, start: match.index });
    if (match[2]) declared.push(match[1] as string);
  }
  const classDocs = new Map<string, string>();
  for (const match of source.matchAll(CLASS_DOC))
    classDocs.set(match[2] as string, docText(match[1] as string));
  const methodDocs = new Map<string, string>();
  for (const match of source.matchAll(METHOD_DOC)) {
    const owner = classes.filter((entry) => entry.start < match.index).at(-1);
    if (owner) methodDocs.set(`${owner.name}.${match[2]}`, docText(match[1] as string));
  }
  const notes = { classDocs, methodDocs, declared };
  cache.set(file, notes);
  return notes;
}

export function declaredClasses(file: string): readonly string[] {
  return readModuleNotes(file).declared;
}
