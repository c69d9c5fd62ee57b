#!/usr/bin/env node
// Counts, per package, what the house plan (.dependency-cruiser.cjs) is about: import cycles, value imports
// that point up a layer (what lint refuses) and type-only ones that do (lint lets them through; each says why
// beside it). It runs this repository's rules through dependency-cruiser on any checkout, reading that
// checkout's packages/<name>/layers.cjs, so an older commit is counted by today's rules.
// Usage: node scripts/house-plan-counts.mjs [checkout]    (default: this repository); prints a Markdown table.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const checkout = resolve(process.argv[2] ?? root);
const LAYER_RULE = /^(.+)-layer-/;
const TYPE_ONLY = '-type-only';

// The real rules, each layer rule twice: as lint has it, and without its type-only exemption.
const scratch = mkdtempSync(join(tmpdir(), 'house-plan-counts-'));
const config = join(scratch, 'counts.cjs');
writeFileSync(
  config,
  `const plan = require(${JSON.stringify(join(root, '.dependency-cruiser.cjs'))});
const layerRules = plan.forbidden.filter((rule) => ${LAYER_RULE}.test(rule.name));
module.exports = {
  ...plan,
  forbidden: [
    ...plan.forbidden,
    ...layerRules.map(({ to: { dependencyTypesNot, ...to }, ...rule }) => ({
      ...rule,
      name: rule.name + ${JSON.stringify(TYPE_ONLY)},
      severity: 'info',
      to,
    })),
  ],
};
`,
);
let result;
try {
  const json = execFileSync(
    join(root, 'node_modules', '.bin', 'depcruise'),
    ['--config', config, '--output-type', 'json', 'packages'],
    { cwd: checkout, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
  );
  result = JSON.parse(json);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const packages = readdirSync(join(checkout, 'packages')).sort();
const packageOf = (path) => path.match(/^packages\/([^/]+)\//)?.[1];
const rows = new Map(
  packages.map((name) => [name, { inCycles: new Set(), groups: [], up: 0, typeOnlyUp: 0 }]),
);
for (const violation of result.summary.violations) {
  const row = rows.get(packageOf(violation.from));
  if (!row) continue;
  const rule = violation.rule.name;
  if (rule === 'no-circular') {
    // A file that lies on several cycles is one tangle: cycles sharing a file merge into one group.
    const members = new Set([violation.from, ...violation.cycle.map((step) => step.name)]);
    for (const member of members) row.inCycles.add(member);
    const touching = row.groups.filter((group) => [...members].some((member) => group.has(member)));
    row.groups = row.groups.filter((group) => !touching.includes(group));
    row.groups.push(new Set([...members, ...touching.flatMap((group) => [...group])]));
  } else if (rule.endsWith(TYPE_ONLY)) {
    if (violation.dependencyTypes.includes('type-only')) row.typeOnlyUp++;
  } else if (LAYER_RULE.test(rule)) {
    row.up++;
  }
}

console.log(`house plan of ${checkout}: ${result.summary.totalCruised} modules cruised`);
console.log('');
console.log('| package | cycles (files in them) | value imports up a layer | type-only imports up a layer |');
console.log('| ------- | ---------------------- | ------------------------ | ---------------------------- |');
for (const [name, row] of rows) {
  console.log(`| ${name} | ${row.groups.length} (${row.inCycles.size}) | ${row.up} | ${row.typeOnlyUp} |`);
}
