// The repository is self-contained: its Markdown links only to files inside it, and to no notes
// a user of the repository does not have.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const NOT_DOCS = new Set(['node_modules', 'dist', '.git', '.tmp', 'data']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (NOT_DOCS.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [relative(root, path)] : [];
  });
}

test('no Markdown file links or refers outside the repository', () => {
  const files = markdownFiles(root);
  assert.ok(files.includes('CONTRIBUTING.md'));
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    if (/shared\/reference|\.\.\/shared|ENGINEERING\.md/.test(text))
      problems.push(`${file}: mentions notes outside the repository`);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:|^#/.test(target as string)) continue;
      const path = resolve(dirname(join(root, file)), (target as string).split('#')[0] as string);
      if (relative(root, path).startsWith('..'))
        problems.push(`${file}: links outside the repository: ${target}`);
      else if (!existsSync(path)) problems.push(`${file}: links a missing file: ${target}`);
    }
  }
  assert.deepEqual(problems, []);
});
