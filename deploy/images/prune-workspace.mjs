// Leaves in node_modules only what one workspace needs at run time. `npm ci --omit=dev -w <workspace>`
// also installs the production dependencies of the other workspaces (npm 11 filters by the lockfile's
// dev flag, not by the workspace's tree), so the book service's image would carry the endpoints
// framework's TypeScript compiler; `npm ls` does walk the workspace's own tree.
// Usage (in the image build, from the repository root): node prune-workspace.mjs packages/<name>
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const workspace = process.argv[2];
if (!workspace) {
  process.stderr.write('usage: node prune-workspace.mjs packages/<name>\n');
  process.exit(2);
}
const needed = new Set(
  execFileSync('npm', ['ls', '--all', '--parseable', '--omit=dev', '-w', workspace], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((path) => resolve(path)),
);

/** Every installed package directly under a node_modules folder, scoped ones included. */
function installed(modules) {
  if (!existsSync(modules)) return [];
  return readdirSync(modules).flatMap((name) => {
    if (name.startsWith('.')) return [];
    const path = join(modules, name);
    return name.startsWith('@') ? readdirSync(path).map((scoped) => join(path, scoped)) : [path];
  });
}

const folders = [
  resolve('node_modules'),
  ...installed(resolve('packages')).map((p) => join(p, 'node_modules')),
];
let removed = 0;
for (const folder of folders) {
  for (const path of installed(folder)) {
    if (needed.has(path)) continue;
    rmSync(path, { recursive: true, force: true });
    removed += 1;
  }
}
// A scope whose packages all went goes too.
for (const folder of folders) {
  if (!existsSync(folder)) continue;
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (name.startsWith('@') && readdirSync(path).length === 0) rmSync(path, { recursive: true });
  }
}
process.stdout.write(`prune-workspace: ${workspace}: ${needed.size} packages kept, ${removed} removed\n`);
