// The house plan in `npm run lint` (.dependency-cruiser.cjs): the real rules, run on scratch packages,
// pass a clean tree and fail each kind of violation they exist for.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@platform/testkit';

const root = fileURLToPath(new URL('..', import.meta.url));
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
const config = join(root, '.dependency-cruiser.cjs');
const scratchDirs: string[] = [];
after(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

type Files = Record<string, string>;

// A package `demo` with two layers (api above store) and a `ratelimit` package with its public entry and an
// internal module; every run adds a copy of the real test harness (packages/testkit), so the smallest tree
// every rule has something to say about includes a real package.
const cleanTree: Files = {
  'packages/demo/package.json': '{"name":"demo"}',
  'packages/demo/layers.cjs': `module.exports = { layers: [
    { name: 'api', path: '^packages/demo/src/api' },
    { name: 'store', path: '^packages/demo/src/store' },
  ] };`,
  'packages/demo/src/api/routes.ts': `import { save } from '../store/save.js';\nimport { limit } from '../../../ratelimit/src/lib.js';\nexport const route = () => save(limit);\n`,
  'packages/demo/src/store/save.ts': `import type { Route } from '../api/types.js';\nexport const save = (value: unknown): Route | unknown => value;\n`,
  'packages/demo/src/api/types.ts': 'export type Route = string;\n',
  'packages/demo/test/routes.test.ts': `import { freePort } from '../../testkit/src/index.js';\nexport const port = freePort;\n`,
  'packages/ratelimit/package.json': '{"name":"ratelimit"}',
  'packages/ratelimit/src/lib.ts': `import { bucket } from './internal.js';\nexport const limit = bucket;\n`,
  'packages/ratelimit/src/internal.ts': 'export const bucket = 1;\n',
};

function writeTree(dir: string, files: Files): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

function scratchTree(files: Files): string {
  const dir = mkdtempSync(join(tmpdir(), 'house-plan-'));
  scratchDirs.push(dir);
  cpSync(join(root, 'packages/testkit'), join(dir, 'packages/testkit'), {
    recursive: true,
    filter: (path) => !path.includes('node_modules'),
  });
  writeTree(dir, files);
  return dir;
}

async function lint(files: Files): Promise<{ code: number; output: string }> {
  const result = await runCommand(depcruise, ['--config', config, '--output-type', 'err', 'packages'], {
    cwd: scratchTree(files),
  });
  return { code: result.code, output: result.stdout + result.stderr };
}

// Two runs of the real command: one on clean trees, one with every kind of violation added at once, each
// of which must be named by its own error line (one spawn of depcruise costs seconds of CPU).
const violations: { why: string; files: Files; rule: RegExp }[] = [
  {
    why: 'a deliberately added cycle',
    files: {
      'packages/demo/src/store/save.ts': `import { route } from '../api/routes.js';\nexport const save = (value: unknown) => [value, route];\n`,
    },
    rule: /error no-circular: packages\/demo\/src\/(store\/save|api\/routes)\.ts/,
  },
  {
    why: 'a value import from a lower layer up to a higher one',
    files: {
      'packages/demo/src/store/load.ts': `import { route } from '../api/routes.js';\nexport const load = route;\n`,
    },
    rule: /error demo-layer-store: packages\/demo\/src\/store\/load\.ts → packages\/demo\/src\/api\/routes\.ts/,
  },
  {
    why: 'the test harness imported by production code',
    files: {
      'packages/demo/src/api/port.ts': `import { freePort } from '../../../testkit/src/index.js';\nexport const port = freePort;\n`,
    },
    rule: /error testkit-only-in-tests: packages\/demo\/src\/api\/port\.ts/,
  },
  {
    why: "another package's internals",
    files: {
      'packages/demo/src/api/bucket.ts': `import { bucket } from '../../../ratelimit/src/internal.js';\nexport const b = bucket;\n`,
    },
    rule: /error no-foreign-internals: packages\/demo\/src\/api\/bucket\.ts → packages\/ratelimit\/src\/internal\.ts/,
  },
  {
    why: 'a cycle added to a copy of a real package (the test harness)',
    files: {
      'packages/testkit/src/ports.ts': `export { startRedis } from './redis.js';\n`,
      'packages/testkit/src/redis.ts': `import { freePort } from './ports.js';\nexport const startRedis = freePort;\n`,
    },
    rule: /error no-circular: packages\/testkit\/src\/(ports|redis)\.ts/,
  },
];

test('trees that keep the plan pass, type-only imports up a layer included', async () => {
  const result = await lint(cleanTree);
  assert.equal(result.code, 0, result.output);
});

test('each violation fails the lint and is named by its rule', async () => {
  const result = await lint(Object.assign({ ...cleanTree }, ...violations.map((v) => v.files)));
  assert.notEqual(result.code, 0, result.output);
  for (const { why, rule } of violations) assert.match(result.output, rule, why);
});

test('scripts/house-plan-counts.mjs counts cycles and imports up a layer, value and type-only, per package', async () => {
  const added = violations.filter(
    ({ why }) => why.startsWith('a value import') || why.startsWith('a cycle added'),
  );
  const dir = scratchTree(Object.assign({ ...cleanTree }, ...added.map((v) => v.files)));
  const result = await runCommand(process.execPath, [join(root, 'scripts/house-plan-counts.mjs'), dir]);
  assert.equal(result.code, 0, result.stderr);
  // demo: store/load.ts imports a value from api/, store/save.ts a type; testkit: ports.ts ↔ redis.ts.
  assert.match(result.stdout, /^\| demo \| 0 \(0\) \| 1 \| 1 \|$/m);
  assert.match(result.stdout, /^\| testkit \| 1 \(2\) \| 0 \| 0 \|$/m);
  assert.match(result.stdout, /^\| ratelimit \| 0 \(0\) \| 0 \| 0 \|$/m);
});
