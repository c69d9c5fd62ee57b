import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));
const repoRoot = join(packageRoot, '..', '..');

/**
 * Compares a document with its golden file in test/golden; `UPDATE_GOLDEN=1` rewrites the file
 * instead (review the diff before committing it).
 */
export function assertGolden(document: unknown, name: string): void {
  const file = join(packageRoot, 'test', 'golden', name);
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) writeFileSync(file, text);
  const golden = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(document, golden);
  // Key order matters too (paths, methods, responses are sorted); the file's layout is Biome's.
  assert.equal(JSON.stringify(document), JSON.stringify(golden));
}

/** As assertGolden, for a text written as it is (the emitted client: `<name>.txt`, so no tool reads it as code). */
export function assertGoldenText(text: string, name: string): void {
  const file = join(packageRoot, 'test', 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) writeFileSync(file, text);
  assert.equal(
    text,
    readFileSync(file, 'utf8'),
    `${name} differs from the emitted text (UPDATE_GOLDEN=1 rewrites it)`,
  );
}

/** Runs `@redocly/cli lint` with the package's config (the recommended rules); throws with its report on failure. */
export async function redoclyLint(file: string): Promise<string> {
  const redocly = join(repoRoot, 'node_modules', '.bin', 'redocly');
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  try {
    const { stdout, stderr } = await promisify(execFile)(
      redocly,
      ['lint', '--format=stylish', `--config=${join(packageRoot, 'redocly.yaml')}`, file],
      { env, timeout: 120_000 },
    );
    return stdout + stderr;
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    throw new Error(`redocly lint failed for ${file}:\n${failure.stdout}${failure.stderr}`);
  }
}
