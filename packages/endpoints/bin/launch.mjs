// Runs a command of this package without a build step: in a checkout (the TypeScript sources are
// here) through tsx, so `npm ci` alone makes `npx <command>` work and an edit is live at once;
// where only the compiled dist/ is shipped, from dist/.
// Each package keeps its own copy on purpose: a package installed by itself (an image, a tarball) has no
// sibling to import it from.
import { existsSync } from 'node:fs';

/** @param {string} command the file name under bin/, without extension */
export async function launch(command) {
  const source = new URL(`./${command}.ts`, import.meta.url);
  if (existsSync(source)) {
    // The same hooks as `node --import tsx`: ESM and CommonJS, for this process and its workers.
    await import('tsx');
    await import(source.href);
    return;
  }
  const compiled = new URL(`../dist/bin/${command}.js`, import.meta.url);
  await import(compiled.href);
}
