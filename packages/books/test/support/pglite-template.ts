// One migrated PGlite cluster for every test process of a run. PGlite's initdb takes 8-16 s on a busy
// two-core machine, and a test process or a spawned `books` command on `pglite:memory` or a new data
// directory paid it each time; loading a copy of a migrated cluster takes about 2 s. The copy is built once
// per PGlite release and set of migrations and kept in the OS temp directory, so later processes (and
// later runs) only read it.
import { createHash } from 'node:crypto';
import { access, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrate } from '../../src/db/migrate.js';
import { pgliteDatabase } from '../../src/db/pglite.js';
import { packageRoot } from '../../src/paths.js';

const DUMP_FILE = 'cluster.tar';
const DATA_DIR = 'pgdata';

/** PGlite's package.json (its exports hide it from `resolve`): the nearest one above its entry point. */
async function pgliteManifest(): Promise<string> {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (
    !(await readFile(join(dir, 'package.json'), 'utf8').catch(() => '')).includes('"@electric-sql/pglite"')
  ) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('the package.json of @electric-sql/pglite was not found');
    dir = parent;
  }
  return join(dir, 'package.json');
}

/** What the migrated cluster is made of: the PGlite release, the migration runner and every migration. */
async function templateKey(): Promise<string> {
  const hash = createHash('sha256');
  hash.update(await readFile(await pgliteManifest()));
  hash.update(await readFile(join(packageRoot, 'src', 'db', 'migrate.ts')));
  const migrations = join(packageRoot, 'migrations');
  for (const name of (await readdir(migrations)).sort()) {
    hash.update(name).update(await readFile(join(migrations, name)));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Builds the template in a private directory and renames it into place: a process that finds the
 * directory finds it whole. Two processes that build at once both succeed; the second rename loses.
 */
async function buildTemplate(target: string): Promise<void> {
  const building = await mkdtemp(`${target}.building-`);
  try {
    const pglite = await PGlite.create();
    await migrate(pgliteDatabase(pglite));
    const dump = await pglite.dumpDataDir('none');
    await pglite.close();
    await writeFile(join(building, DUMP_FILE), Buffer.from(await dump.arrayBuffer()));
    // The same cluster as a data directory, for commands that open `pglite:<dir>`.
    const onDisk = await PGlite.create({ dataDir: join(building, DATA_DIR), loadDataDir: dump });
    await onDisk.close();
    await rename(building, target).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
}

let template: Promise<string> | undefined;

/** The directory of the template for the current migrations, built on first use. */
function templateDir(): Promise<string> {
  template ??= (async () => {
    const dir = join(tmpdir(), `books-test-pglite-${await templateKey()}`);
    const complete = await access(join(dir, DUMP_FILE)).then(
      () => true,
      () => false,
    );
    if (!complete) await buildTemplate(dir);
    return dir;
  })();
  return template;
}

let dump: Promise<Blob> | undefined;

/** The migrated cluster as a `PGlite#dumpDataDir` blob, to start an in-memory database from. */
export function migratedDump(): Promise<Blob> {
  dump ??= templateDir().then(async (dir) => new Blob([await readFile(join(dir, DUMP_FILE))]));
  return dump;
}

/** A new data directory holding the migrated cluster, under `parent` (made if missing). */
export async function migratedDataDir(parent: string): Promise<string> {
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(join(parent, 'pgdata-'));
  await cp(join(await templateDir(), DATA_DIR), dir, { recursive: true });
  return dir;
}
