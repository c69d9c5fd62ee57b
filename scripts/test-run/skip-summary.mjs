// A node:test reporter that writes nothing but the closing block of `npm test`: every skipped
// suite and test, grouped by the reason it gives, with counts. A skipped suite's tests are not run,
// so node:test never reports them one by one; the block names the suite instead.
import { relative } from 'node:path';

const root = process.cwd();

export default async function* skipSummary(source) {
  const skipped = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, todo, name, file, details } = event.data;
    if (skip === undefined && todo === undefined) continue;
    skipped.push({
      kind: details?.type === 'suite' ? 'suite' : 'test',
      what: skip === undefined ? 'todo' : 'skipped',
      name,
      file: file ? relative(root, file) : '?',
      reason: typeof (skip ?? todo) === 'string' ? (skip ?? todo) : 'no reason given',
    });
  }
  yield render(skipped);
}

function render(skipped) {
  if (skipped.length === 0) return '\n== skipped: nothing; every suite and test ran\n';
  const suites = skipped.filter((entry) => entry.kind === 'suite').length;
  const tests = skipped.length - suites;
  const lines = [
    `\n== skipped: ${plural(suites, 'suite')} (their tests did not run) and ${plural(tests, 'test')}`,
  ];
  const byReason = new Map();
  for (const entry of skipped) byReason.set(entry.reason, [...(byReason.get(entry.reason) ?? []), entry]);
  for (const [reason, entries] of byReason) {
    lines.push(`  why: ${reason}`);
    for (const entry of entries)
      lines.push(`    ${entry.kind} ${entry.file}: ${entry.name}${entry.what === 'todo' ? ' (todo)' : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
