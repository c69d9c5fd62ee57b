// The container images (deploy/images/Containerfile, `npm run images`) and what deploy/ says to do with
// them, run here with podman: a clean clone, the stand-in base, all three images, then each system as a
// container (non-root, read-only root), the Kubernetes manifests under `podman kube play`, the ConfigMap
// update on a mounted directory, and deploy/compose.yaml under podman-compose.
// No registry can be reached here: the base is a stand-in for node:20-bookworm-slim built with debootstrap
// (scripts/images-base.sh), and Redis in Compose and `kube play` is a stand-in for the official Redis image
// built from Debian's redis-server (deploy/test/fixtures/images/redis.Containerfile).
// Slow: a first build on a machine takes 15-25 minutes; later runs reuse the cached base and npm layers.
// Needs root, podman, buildah, debootstrap and podman-compose (scripts/containers.sh installs them).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { RemoteRateLimiter } from '@platform/ratelimit';
import {
  databaseUrl,
  freePort,
  type RedisProcess,
  requireBinary,
  runCommand,
  startRedis,
} from '@platform/testkit';
import pg from 'pg';
import { parseAllDocuments, parse as parseYaml, stringify as stringifyYaml } from 'yaml';

const root = fileURLToPath(new URL('../..', import.meta.url));
const IMAGES = ['ratelimit', 'books', 'endpoints'] as const;
const BUILD_TIMEOUT_MS = 45 * 60_000;
const RUN_TIMEOUT_MS = 3 * 60_000;

/** false when podman & co. are here (and we are root); otherwise why not (under CI: a failure). */
function containersSkip(): false | string {
  for (const [binary, pkg] of [
    ['podman', 'podman'],
    ['buildah', 'buildah'],
    ['debootstrap', 'debootstrap'],
    ['podman-compose', 'podman-compose'],
  ] as const) {
    const found = requireBinary(binary, pkg);
    if (typeof found !== 'string') {
      const message = `${found.message}; scripts/containers.sh installs the container tools`;
      process.stderr.write(`\n*** SKIPPING the image tests: ${message} ***\n\n`);
      return message;
    }
  }
  if (process.getuid?.() !== 0) {
    const message = 'the image tests build with debootstrap and run podman as root: run them as root';
    if (process.env.CI === 'true') throw new Error(`CI=true and ${message}`);
    process.stderr.write(`\n*** SKIPPING: ${message} ***\n\n`);
    return message;
  }
  return false;
}

const podman = (args: readonly string[], timeoutMs = RUN_TIMEOUT_MS) =>
  runCommand('podman', args, { timeoutMs });

async function podmanOk(args: readonly string[], timeoutMs = RUN_TIMEOUT_MS): Promise<string> {
  const result = await podman(args, timeoutMs);
  assert.equal(result.code, 0, `podman ${args.join(' ')}\n${result.stdout}${result.stderr}`);
  return result.stdout.trim();
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await delay(50);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

async function httpStatus(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

const ready = (url: string, timeoutMs = 60_000) =>
  waitFor(
    `${url} to answer 200`,
    async () => ((await httpStatus(url)) === 200 ? true : undefined),
    timeoutMs,
  );

interface JsonDecision {
  overallCode: string;
  statuses: { code: string; currentLimit?: { requestsPerUnit: number }; limitRemaining?: number }[];
}

async function askJson(
  port: number,
  domain: string,
  key: string,
  value: string,
  more: { key: string; value: string }[] = [],
): Promise<JsonDecision> {
  const response = await fetch(`http://127.0.0.1:${port}/json`, {
    method: 'POST',
    body: JSON.stringify({ domain, descriptors: [{ entries: [{ key, value }, ...more] }] }),
  });
  assert.equal(response.status === 200 || response.status === 429, true, `/json answered ${response.status}`);
  return (await response.json()) as JsonDecision;
}

/** Size in bytes of the layers an image has above the base. */
async function sizeAboveBase(image: string, baseImage: string): Promise<number> {
  const size = async (name: string) =>
    Number(await podmanOk(['image', 'inspect', '--format', '{{.Size}}', name]));
  return (await size(image)) - (await size(baseImage));
}

/** Resident set of the node processes of a running container, in bytes. */
async function nodeRss(container: string): Promise<number> {
  const out = await podmanOk([
    'exec',
    container,
    'sh',
    '-c',
    'for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = node ] && grep VmRSS $p/status; done',
  ]);
  return [...out.matchAll(/VmRSS:\s+(\d+) kB/g)].reduce((sum, match) => sum + Number(match[1]) * 1024, 0);
}

/** The labels of the image in an OCI archive, read as the layout says: index, manifest, then config. */
async function archiveLabels(file: string): Promise<Record<string, string>> {
  const read = async (path: string) => {
    const result = await runCommand('tar', ['-xOf', file, path]);
    assert.equal(result.code, 0, `tar -xOf ${file} ${path}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const blob = (digest: string) => `blobs/${digest.replace(':', '/')}`;
  const index = await read('index.json');
  const manifest = await read(blob(index.manifests[0].digest));
  const config = await read(blob(manifest.config.digest));
  return config.config.Labels;
}

/**
 * Three free ports, all different: the kernel may hand a port it just gave out to the next ask, and a
 * server given one port twice fails to listen and is never ready.
 */
async function threeFreePorts(): Promise<[number, number, number]> {
  const ports = new Set<number>();
  while (ports.size < 3) ports.add(await freePort());
  return [...ports] as [number, number, number];
}

const MiB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * `podman run --detach`, as `podman create` and `podman start` timed apart: creating a container copies the
 * image's whole tree with the vfs storage driver, which is the storage's time, not the system's.
 */
interface Timing {
  createMs: number;
  readyMs: number;
}

async function startTimed(args: readonly string[], probe: string): Promise<Timing> {
  const begun = performance.now();
  const id = await podmanOk(['create', ...args]);
  const created = performance.now();
  await podmanOk(['start', id]);
  await ready(probe);
  return { createMs: created - begun, readyMs: performance.now() - created };
}

/** `podman stop`'s counterpart that we time: SIGTERM, then the seconds until the container has exited. */
async function terminate(container: string): Promise<{ exitCode: number; seconds: number }> {
  const started = performance.now();
  await podmanOk(['kill', '--signal', 'TERM', container]);
  const exitCode = await waitFor(
    `${container} to exit`,
    async () => {
      const state = await podmanOk([
        'inspect',
        '--format',
        '{{.State.Status}} {{.State.ExitCode}}',
        container,
      ]);
      const [status, code] = state.split(' ');
      return status === 'exited' ? Number(code) : undefined;
    },
    60_000,
  );
  return { exitCode, seconds: (performance.now() - started) / 1000 };
}

/** SIGTERM, then exit 0 in under `maxSeconds`. */
async function stopsCleanly(container: string, maxSeconds: number): Promise<void> {
  const { exitCode, seconds } = await terminate(container);
  assert.equal(exitCode, 0, `${container} exit code after SIGTERM`);
  assert.ok(seconds < maxSeconds, `${container} exited ${seconds} s after SIGTERM`);
}

const skip = containersSkip();

describe('container images from a clean clone', { skip, timeout: BUILD_TIMEOUT_MS + 20 * 60_000 }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'images-'));
  const clone = join(scratch, 'platform');
  const run = `images-test-${process.pid}`;
  const containers: string[] = [];
  let revision = '';
  let shortRevision = '';
  let baseArchive = '';
  let baseImage = '';
  let redisStandIn = '';
  let redis: RedisProcess;
  const tag = (name: string) => `localhost/platform/${name}:${revision}`;
  const name = (what: string) => {
    const container = `${run}-${what}`;
    containers.push(container);
    return container;
  };

  /** The README's figures of a running image, and the size target: at most 80 MiB above the base. */
  async function reportFigures(
    t: TestContext,
    image: (typeof IMAGES)[number],
    container: string,
    { createMs, readyMs }: Timing,
  ): Promise<void> {
    assert.equal(await podmanOk(['exec', container, 'id', '-u']), '1000', `${image} runs as uid 1000`);
    const rss = await nodeRss(container);
    const size = await sizeAboveBase(tag(image), baseImage);
    t.diagnostic(
      `${image}: ready ${Math.round(readyMs)} ms from podman start (podman create: ${Math.round(createMs)} ms); idle RSS ${MiB(rss)}; ${MiB(size)} above the base`,
    );
    assert.ok(size <= 80 * 2 ** 20, `${image} is ${MiB(size)} above the base`);
  }

  before(async () => {
    const cloned = await runCommand('git', ['clone', '--quiet', '--no-hardlinks', root, clone]);
    assert.equal(cloned.code, 0, cloned.stderr);
    revision = (await runCommand('git', ['rev-parse', 'HEAD'], { cwd: clone })).stdout.trim();
    shortRevision = (await runCommand('git', ['rev-parse', '--short', 'HEAD'], { cwd: clone })).stdout.trim();

    const base = await runCommand('bash', ['scripts/images-base.sh'], { cwd: clone, timeoutMs: 20 * 60_000 });
    assert.equal(base.code, 0, base.stderr);
    baseArchive = base.stdout.trim().split('\n').pop() ?? '';
    baseImage = `localhost/platform-node-base:${process.version}`;

    const built = await runCommand('node', ['scripts/images.mjs'], {
      cwd: clone,
      env: { NODE_IMAGE: `oci-archive:${baseArchive}` },
      timeoutMs: BUILD_TIMEOUT_MS,
    });
    assert.equal(built.code, 0, `${built.stdout.slice(-6000)}\n${built.stderr.slice(-6000)}`);

    redisStandIn = `localhost/platform-test/redis-standin:${process.version}`;
    await podmanOk(
      [
        'build',
        '--quiet',
        '--file',
        join(root, 'deploy', 'test', 'fixtures', 'images', 'redis.Containerfile'),
        '--build-arg',
        `BASE=oci-archive:${baseArchive}`,
        '--tag',
        redisStandIn,
        join(root, 'deploy', 'test', 'fixtures', 'images'),
      ],
      20 * 60_000,
    );
    redis = await startRedis();
  });

  after(async () => {
    for (const container of containers) await podman(['rm', '--force', '--time', '0', container]);
    await redis?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  test('each image has the OCI labels, both commit tags and its OCI archive', async () => {
    assert.match(revision, /^[0-9a-f]{40}$/);
    for (const image of IMAGES) {
      const inspected = JSON.parse(await podmanOk(['image', 'inspect', tag(image)]))[0];
      const labels = inspected.Labels as Record<string, string>;
      assert.equal(labels['org.opencontainers.image.revision'], revision);
      assert.equal(labels['org.opencontainers.image.version'], '0.1.0');
      assert.ok(labels['org.opencontainers.image.source'], 'source label');
      assert.ok(labels['org.opencontainers.image.licenses'], 'licenses label');
      assert.ok(inspected.RepoTags.includes(`localhost/platform/${image}:${revision}`), inspected.RepoTags);
      assert.ok(
        inspected.RepoTags.includes(`localhost/platform/${image}:${shortRevision}`),
        inspected.RepoTags,
      );
      assert.equal(inspected.Config.User, '1000:1000');
      const archived = await archiveLabels(join(clone, 'build', 'images', `${image}.oci.tar`));
      assert.equal(archived['org.opencontainers.image.revision'], revision);
    }
  });

  test('a checkout without git is refused with one line', async () => {
    const tarball = join(scratch, 'tarball');
    mkdirSync(join(tarball, 'scripts'), { recursive: true });
    writeFileSync(join(tarball, 'package.json'), readFileSync(join(clone, 'package.json')));
    writeFileSync(join(tarball, 'scripts', 'images.mjs'), readFileSync(join(clone, 'scripts', 'images.mjs')));
    const result = await runCommand('node', ['scripts/images.mjs'], {
      cwd: tarball,
      env: { GIT_CEILING_DIRECTORIES: scratch },
    });
    assert.equal(result.code, 1);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /^images: not a git checkout: .*tagged by commit id/);
  });

  test('the runtime stages hold compiled JavaScript, production dependencies and no TypeScript', async () => {
    for (const image of IMAGES) {
      const listing = await podmanOk([
        'run',
        '--rm',
        '--entrypoint',
        'sh',
        tag(image),
        '-c',
        'find /app -name "*.ts" -not -path "*/node_modules/*" | head -5; ls /app/node_modules; ls /app/packages',
      ]);
      assert.doesNotMatch(listing, /\.ts$/m, `${image}: TypeScript sources in the image`);
      assert.doesNotMatch(listing, /^(@biomejs|playwright-core|autocannon|dependency-cruiser)$/m, image);
      // The TypeScript compiler and openapi-typescript's @redocly are production dependencies of the
      // framework alone (types read with --project, the emitted client): no other image carries them.
      for (const compilerPart of ['typescript', '@redocly']) {
        assert.equal(
          listing.split('\n').includes(compilerPart),
          image === 'endpoints',
          `${image}: ${compilerPart}`,
        );
      }
      const expected = image === 'books' ? ['books', 'ratelimit'] : [image];
      assert.deepEqual(
        listing.split('\n').filter((line) => ['books', 'ratelimit', 'endpoints', 'testkit'].includes(line)),
        expected,
      );
      // tsx only where TypeScript controllers are loaded at run time.
      assert.equal(/^tsx$/m.test(listing), image === 'endpoints', `${image}: tsx`);
    }
  });

  test('ratelimit: config volume and Redis, /json and gRPC, a ConfigMap-style reload, SIGTERM exits 0 within its drain', async (t) => {
    const [http, grpc, debug] = await threeFreePorts();
    // The directory a ConfigMap volume is: each file a symlink through ..data to a timestamped folder.
    const data = join(scratch, 'ratelimit-data');
    const config = join(data, 'ratelimit', 'config');
    const version = (stamp: string, perMinute: number) => {
      mkdirSync(join(config, stamp), { recursive: true });
      writeFileSync(
        join(config, stamp, 'images.yaml'),
        `domain: images\ndescriptors:\n  - key: user\n    rate_limit:\n      unit: minute\n      requests_per_unit: ${perMinute}\n`,
      );
    };
    version('..2026_11_27_10_00_00.000000001', 2);
    symlinkSync('..2026_11_27_10_00_00.000000001', join(config, '..data'));
    symlinkSync('..data/images.yaml', join(config, 'images.yaml'));

    const container = name('ratelimit');
    const timing = await startTimed(
      [
        '--name',
        container,
        '--read-only',
        '--network',
        'host',
        '--volume',
        `${data}:/data:ro`,
        ...['--env', `PORT=${http}`, '--env', `GRPC_PORT=${grpc}`, '--env', `DEBUG_PORT=${debug}`],
        ...['--env', 'HOST=127.0.0.1', '--env', 'GRPC_HOST=127.0.0.1', '--env', 'DEBUG_HOST=127.0.0.1'],
        ...[
          '--env',
          'BACKEND_TYPE=redis',
          '--env',
          `REDIS_URL=${redis.address}`,
          '--env',
          'USE_STATSD=false',
        ],
        ...['--env', 'RUNTIME_ROOT=/data', '--env', 'RUNTIME_SUBDIRECTORY=ratelimit'],
        ...['--env', 'RUNTIME_WATCH_ROOT=false', '--env', 'RUNTIME_IGNOREDOTFILES=true'],
        ...['--env', 'SHUTDOWN_DRAIN_DURATION=2s'],
        tag('ratelimit'),
      ],
      `http://127.0.0.1:${http}/healthcheck`,
    );

    const write = await podman(['exec', container, 'sh', '-c', 'touch /app/x']);
    assert.notEqual(write.code, 0, 'the root file system is read-only');

    const first = await askJson(http, 'images', 'user', 'ada');
    assert.equal(first.overallCode, 'OK');
    assert.equal(first.statuses[0]?.currentLimit?.requestsPerUnit, 2);
    const keys = await runCommand('redis-cli', [
      '-p',
      String(redis.port),
      '--scan',
      '--pattern',
      'images_user_ada_*',
    ]);
    assert.match(keys.stdout, /images_user_ada_/, 'the counter is in the test Redis');

    const remote = new RemoteRateLimiter(`127.0.0.1:${grpc}`, { timeoutMs: 5000 });
    try {
      const second = await remote.shouldRateLimit('images', [{ entries: [{ key: 'user', value: 'ada' }] }]);
      assert.equal(second.overLimit, false);
      const third = await remote.shouldRateLimit('images', [{ entries: [{ key: 'user', value: 'ada' }] }]);
      assert.equal(third.overLimit, true, 'the third call in a minute is over a limit of 2');
    } finally {
      await remote.close();
    }

    // Kubernetes' update of a ConfigMap volume: a new timestamped folder, then a new ..data symlink
    // renamed over the old one (one atomic step).
    version('..2026_11_27_10_05_00.000000002', 50);
    symlinkSync('..2026_11_27_10_05_00.000000002', join(config, '..data_tmp'));
    renameSync(join(config, '..data_tmp'), join(config, '..data'));
    rmSync(join(config, '..2026_11_27_10_00_00.000000001'), { recursive: true });
    await waitFor('the new limit of 50 per minute', async () => {
      const decision = await askJson(http, 'images', 'user', 'grace');
      return decision.statuses[0]?.currentLimit?.requestsPerUnit === 50 ? true : undefined;
    });

    await reportFigures(t, 'ratelimit', container, timing);
    assert.ok(timing.readyMs <= 3000, `ratelimit ready in ${Math.round(timing.readyMs)} ms (target: 3 s)`);

    // SIGTERM: health fails at once, the listeners serve through the drain, then exit 0.
    const stopping = terminate(container);
    await waitFor('/healthcheck to fail during the drain', async () =>
      (await httpStatus(`http://127.0.0.1:${http}/healthcheck`)) === 500 ? true : undefined,
    );
    assert.equal((await askJson(http, 'images', 'user', 'linus')).overallCode, 'OK', 'served while draining');
    const { exitCode, seconds } = await stopping;
    t.diagnostic(`ratelimit: SIGTERM to exit ${seconds.toFixed(1)} s with SHUTDOWN_DRAIN_DURATION=2s`);
    assert.equal(exitCode, 0);
    assert.ok(seconds >= 2 && seconds < 10, `exited ${seconds} s after SIGTERM`);
  });

  test('ratelimit: Ctrl-C in `podman run -it` stops it, exit 0', async () => {
    const port = await freePort();
    const container = name('ratelimit-tty');
    // `script` gives podman a terminal; ^C typed into it is the terminal's SIGINT for the container.
    const child: ChildProcess = spawn(
      'script',
      [
        '--quiet',
        '--return',
        '--command',
        [
          'podman run -it --rm --read-only --network host --name',
          container,
          `--env PORT=${port} --env HOST=127.0.0.1 --env GRPC_PORT=0 --env DEBUG_PORT=0`,
          '--env BACKEND_TYPE=memory --env USE_STATSD=false --env RUNTIME_ROOT=/tmp/none --env RUNTIME_WATCH_ROOT=true',
          tag('ratelimit'),
        ].join(' '),
        '/dev/null',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await ready(`http://127.0.0.1:${port}/healthcheck`);
    child.stdin?.write('\x03');
    const code = await Promise.race([exited, delay(30_000).then(() => 'timeout' as const)]);
    assert.equal(code, 0, 'podman run -it exits 0 after Ctrl-C');
  });

  test('books: migrations by `books migrate`, then readiness UP on PostgreSQL (DATABASE_URL)', async (t) => {
    const url = databaseUrl();
    if (url === undefined) {
      t.skip('DATABASE_URL is not set');
      return;
    }
    const schema = `images_${process.pid}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA ${schema}`);
      const scoped = new URL(url);
      scoped.searchParams.set('options', `-c search_path=${schema}`);
      const env = [
        '--env',
        `DATABASE_URL=${scoped}`,
        '--env',
        'SESSION_SECRET=images-test-session-secret-0123456789',
      ];

      const migrate = await podman([
        'run',
        '--rm',
        '--read-only',
        '--network',
        'host',
        ...env,
        tag('books'),
        'migrate',
      ]);
      assert.equal(migrate.code, 0, migrate.stderr);
      assert.match(migrate.stdout, /books: applied 001/);
      const tables = await admin.query('SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1', [
        schema,
      ]);
      assert.ok(tables.rows[0].n > 0, 'the migrations made tables in the schema');

      const port = await freePort();
      const container = name('books');
      const readiness = `http://127.0.0.1:${port}/actuator/health/readiness`;
      const timing = await startTimed(
        [
          '--name',
          container,
          '--read-only',
          '--network',
          'host',
          ...env,
          ...['--env', `PORT=${port}`, '--env', 'HOST=127.0.0.1'],
          tag('books'),
        ],
        readiness,
      );
      const body = (await (await fetch(readiness)).json()) as { status: string };
      assert.equal(body.status, 'UP');
      await reportFigures(t, 'books', container, timing);
      await stopsCleanly(container, 10);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  test('books: without DATABASE_URL the embedded database lives on the image volume (read-only root)', async () => {
    const port = await freePort();
    const container = name('books-pglite');
    await podmanOk([
      'run',
      '--detach',
      '--name',
      container,
      '--read-only',
      '--network',
      'host',
      ...['--env', `PORT=${port}`, '--env', 'HOST=127.0.0.1'],
      ...['--env', 'SESSION_SECRET=images-test-session-secret-0123456789'],
      tag('books'),
    ]);
    await ready(`http://127.0.0.1:${port}/actuator/health/readiness`, 120_000);
    const files = await podmanOk(['exec', container, 'ls', '/var/lib/books/data/pglite']);
    assert.match(files, /PG_VERSION/);
    await stopsCleanly(container, 10);
  });

  test('endpoints: serves a mounted controller folder', async (t) => {
    const port = await freePort();
    const container = name('endpoints');
    const timing = await startTimed(
      [
        '--name',
        container,
        '--read-only',
        '--network',
        'host',
        '--volume',
        `${join(clone, 'deploy', 'endpoints', 'controllers')}:/app/controllers:ro`,
        tag('endpoints'),
        'serve',
        '--host',
        `127.0.0.1:${port}`,
      ],
      `http://127.0.0.1:${port}/health`,
    );
    const hello = await fetch(`http://127.0.0.1:${port}/?name=Ada`);
    assert.equal(hello.status, 200);
    assert.equal(await hello.json(), 'hello Ada');
    await reportFigures(t, 'endpoints', container, timing);
    await stopsCleanly(container, 6);
  });

  test('deploy/kubernetes/ratelimit.yaml: the ConfigMap holds deploy/ratelimit/config', () => {
    const documents = parseAllDocuments(
      readFileSync(join(clone, 'deploy', 'kubernetes', 'ratelimit.yaml'), 'utf8'),
    );
    const configMap = documents.map((d) => d.toJS()).find((d) => d.metadata?.name === 'ratelimit-config');
    for (const file of ['example.yaml', 'books.yaml']) {
      const onDisk = parseYaml(readFileSync(join(clone, 'deploy', 'ratelimit', 'config', file), 'utf8'));
      assert.deepEqual(parseYaml(configMap.data[file]), onDisk, file);
    }
  });

  test('podman kube play of the rate limit manifests gives a ready pod that answers', async () => {
    // Changed before playing: the image of this commit (kustomize's job); REDIS_URL, to the stand-in Redis
    // on podman's network, as the pod is; one replica, whose ports are published on free loopback ports
    // (podman 4.3 publishes every containerPort on the host, at the same port unless hostPort is given, so
    // two replicas, or the defaults 8080/8081/6070, would clash).
    const redisContainer = name('kube-redis');
    await podmanOk(['run', '--detach', '--name', redisContainer, '--network', 'podman', redisStandIn]);
    const redisIp = await podmanOk([
      'inspect',
      '--format',
      '{{.NetworkSettings.Networks.podman.IPAddress}}',
      redisContainer,
    ]);
    const hostPorts = new Map<string, number>();
    const documents = parseAllDocuments(
      readFileSync(join(clone, 'deploy', 'kubernetes', 'ratelimit.yaml'), 'utf8'),
    ).map((document) => document.toJS());
    for (const document of documents) {
      if (document.kind === 'Deployment') {
        document.spec.replicas = 1;
        for (const container of document.spec.template.spec.containers) {
          container.image = tag('ratelimit');
          for (const port of container.ports) {
            hostPorts.set(port.name, await freePort());
            Object.assign(port, { hostIP: '127.0.0.1', hostPort: hostPorts.get(port.name) });
          }
        }
      }
      if (document.metadata.name === 'ratelimit-settings') document.data.REDIS_URL = `${redisIp}:6379`;
    }
    const file = join(scratch, 'ratelimit-kube.yaml');
    writeFileSync(file, documents.map((document) => stringifyYaml(document)).join('---\n'));
    const played = await podman(['kube', 'play', '--network', 'podman', file]);
    try {
      assert.equal(played.code, 0, played.stdout + played.stderr);
      const http = hostPorts.get('http') as number;
      await ready(`http://127.0.0.1:${http}/healthcheck`);
      const decision = await askJson(http, 'rl', 'unspec', 'kube');
      assert.equal(
        decision.statuses[0]?.currentLimit?.requestsPerUnit,
        2,
        'example.yaml of the ConfigMap is loaded',
      );
      const remote = new RemoteRateLimiter(`127.0.0.1:${hostPorts.get('grpc')}`, { timeoutMs: 5000 });
      try {
        const second = await remote.shouldRateLimit('rl', [{ entries: [{ key: 'unspec', value: 'kube' }] }]);
        assert.equal(second.overLimit, false);
        const third = await remote.shouldRateLimit('rl', [{ entries: [{ key: 'unspec', value: 'kube' }] }]);
        assert.equal(
          third.overLimit,
          true,
          'counted in the stand-in Redis: the third call in a minute is over 2',
        );
      } finally {
        await remote.close();
      }
      const container = 'ratelimit-pod-0-ratelimit';
      assert.equal(await podmanOk(['exec', container, 'id', '-u']), '1000');
      assert.equal(
        await podmanOk(['inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', container]),
        'true',
      );
    } finally {
      await podman(['kube', 'down', file]);
      await podman(['volume', 'rm', '--force', 'ratelimit-config']);
    }
  });

  test('podman-compose up of deploy/compose.yaml brings the rate limit service and Redis up, answering what deploy/envoy/envoy.yaml asks', async () => {
    const http = await freePort();
    const project = `${run}-compose`;
    const env = {
      IMAGE_TAG: shortRevision,
      REDIS_IMAGE: redisStandIn,
      RATELIMIT_HTTP_PORT: String(http),
      RATELIMIT_GRPC_PORT: String(await freePort()),
      RATELIMIT_DEBUG_PORT: String(await freePort()),
    };
    const compose = (args: readonly string[]) =>
      runCommand('podman-compose', ['--project-name', project, '--file', 'deploy/compose.yaml', ...args], {
        cwd: clone,
        env,
        timeoutMs: RUN_TIMEOUT_MS,
      });
    const up = await compose(['up', '--detach', 'redis', 'ratelimit']);
    try {
      assert.equal(up.code, 0, up.stdout + up.stderr);
      await ready(`http://127.0.0.1:${http}/healthcheck`, 90_000);
      const decisions = [];
      for (let i = 0; i < 3; i++)
        decisions.push((await askJson(http, 'rl', 'unspec', 'compose')).overallCode);
      assert.deepEqual(
        decisions,
        ['OK', 'OK', 'OVER_LIMIT'],
        'example.yaml: unspec is 2 per minute, counted in Redis',
      );
      // What Envoy with deploy/envoy/envoy.yaml sends for `curl -H foo:pelle -H baz:not-so-shady
      // envoy:8888/header` (the reference's trigger-ratelimit.sh): 3 per minute, the 4th is over.
      const envoy = parseYaml(readFileSync(join(clone, 'deploy', 'envoy', 'envoy.yaml'), 'utf8'));
      const manager = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
      const filter = manager.http_filters.find(
        (f: { name: string }) => f.name === 'envoy.filters.http.ratelimit',
      );
      const cluster = envoy.static_resources.clusters.find(
        (c: { name: string }) =>
          c.name === filter.typed_config.rate_limit_service.grpc_service.envoy_grpc.cluster_name,
      );
      const address = cluster.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address;
      assert.deepEqual(
        [address.address, address.port_value],
        ['ratelimit', 8081],
        'the compose service, gRPC',
      );
      const route = manager.route_config.virtual_hosts[0].routes.find(
        (r: { match: { prefix: string } }) => r.match.prefix === '/header',
      );
      const headers: Record<string, string> = { foo: 'pelle', baz: 'not-so-shady' };
      const entries = route.route.rate_limits[0].actions.map(
        (a: { request_headers: { header_name: string; descriptor_key: string } }) => ({
          key: a.request_headers.descriptor_key,
          value: headers[a.request_headers.header_name] as string,
        }),
      );
      const [first, ...rest] = entries;
      const codes = [];
      for (let i = 0; i < 4; i++) {
        codes.push(
          (await askJson(http, filter.typed_config.domain, first.key, first.value, rest)).overallCode,
        );
      }
      assert.deepEqual(codes, ['OK', 'OK', 'OK', 'OVER_LIMIT']);
    } finally {
      const down = await compose(['down', '--timeout', '20']);
      assert.equal(down.code, 0, down.stdout + down.stderr);
    }
  });
});
