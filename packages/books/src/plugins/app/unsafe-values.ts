/** An issue in Ajv's shape, so it is reported like any other validation failure. */
export interface ValueIssue {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

// In `u` mode a paired surrogate is one code point, so \p{Cs} matches only a lone (unpaired) half.
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what this rejects
const UNSTORABLE_TEXT = /[\u0000\p{Cs}]/u;

/**
 * Values the schemas let through but the database cannot keep as sent: a NUL character (PostgreSQL
 * text refuses it), a lone surrogate (stored as U+FFFD, so the write would silently change the text)
 * and a non-finite number (Ajv's query coercion turns `Infinity` and `1e400` into one and then skips
 * `minimum`/`maximum`). Walks iteratively, so deeply nested JSON cannot overflow the stack.
 */
export function unsafeValueIssues(data: unknown): ValueIssue[] {
  const issues: ValueIssue[] = [];
  const pending: [unknown, string][] = [[data, '']];
  while (pending.length > 0) {
    const [value, path] = pending.pop() as [unknown, string];
    if (typeof value === 'string') {
      if (UNSTORABLE_TEXT.test(value)) {
        issues.push({
          instancePath: path,
          schemaPath: '#/characters',
          keyword: 'characters',
          message: 'must not contain NUL characters or unpaired UTF-16 surrogates',
          params: {},
        });
      }
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) {
        issues.push({
          instancePath: path,
          schemaPath: '#/finite',
          keyword: 'finite',
          message: 'must be a finite number',
          params: {},
        });
      }
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) pending.push([child, `${path}/${key}`]);
    }
  }
  return issues;
}
