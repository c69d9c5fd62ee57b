#!/usr/bin/env node
// `npm run images [-- <name>...]`: builds the container images of ratelimit, books and endpoints from the
// commit checked out (deploy/images/Containerfile), tags each by the full and the short commit id, and
// exports each as an OCI archive, build/images/<name>.oci.tar (`podman load -i`, or `skopeo copy` to push).
// The build context is `git archive HEAD`, so an image holds exactly its commit: uncommitted changes are
// left out (with a warning), and a checkout without git (a tarball) is refused.
// Settings (environment):
//   NODE_IMAGE          base of every stage (default docker.io/library/node:20-bookworm-slim; any image
//                       reference, e.g. oci-archive:/path/base.oci.tar)
//   IMAGE_REPOSITORY    name prefix of the tags (default localhost/platform: localhost/platform/ratelimit)
//   CONTAINER_ENGINE    podman (default when installed) or docker
//   NODE_EXTRA_CA_CERTS a CA bundle that npm ci inside the build trusts (behind a TLS-inspecting proxy);
//                       passed as the build secret npm_ca, so it is in no image layer
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const IMAGES = ['ratelimit', 'books', 'endpoints'];
const DEFAULT_NODE_IMAGE = 'docker.io/library/node:20-bookworm-slim';
const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'build', 'images');

function fail(message) {
  process.stderr.write(`images: ${message}\n`);
  process.exit(1);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', ...options });
  if (result.error) fail(`cannot run ${command}: ${result.error.message}`);
  return result;
}

function git(...args) {
  const result = run('git', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function engine() {
  const chosen = process.env.CONTAINER_ENGINE;
  if (chosen) return chosen;
  return run('sh', ['-c', 'command -v podman'], { stdio: 'ignore' }).status === 0 ? 'podman' : 'docker';
}

/** The image's source: the origin remote, else the checkout itself. */
function sourceUrl() {
  const origin = git('remote', 'get-url', 'origin');
  if (origin === undefined) return `file://${root.replace(/\/$/, '')}`;
  return origin;
}

function main(argv) {
  const names = argv.length === 0 ? IMAGES : argv;
  for (const name of names) {
    if (!IMAGES.includes(name)) fail(`unknown image '${name}': expected ${IMAGES.join(', ')}`);
  }
  const revision = git('rev-parse', '--verify', 'HEAD');
  if (revision === undefined) {
    fail(
      'not a git checkout: images are tagged by commit id, so build from a git clone (a tarball has none)',
    );
  }
  const short = git('rev-parse', '--short', 'HEAD');
  if (git('status', '--porcelain', '--untracked-files=no')) {
    process.stderr.write(
      `images: uncommitted changes are not in the images: they are built from commit ${short}\n`,
    );
  }
  const tool = engine();
  const nodeImage = process.env.NODE_IMAGE || DEFAULT_NODE_IMAGE;
  const repository = process.env.IMAGE_REPOSITORY || 'localhost/platform';

  const context = join(outDir, 'context');
  rmSync(context, { recursive: true, force: true });
  mkdirSync(context, { recursive: true });
  const archive = run('sh', ['-c', `git archive --format=tar HEAD | tar -x -C '${context}'`], {
    stdio: 'inherit',
  });
  if (archive.status !== 0) fail('git archive HEAD failed');
  const rootManifest = JSON.parse(readFileSync(join(context, 'package.json'), 'utf8'));

  for (const name of names) {
    const manifest = JSON.parse(readFileSync(join(context, 'packages', name, 'package.json'), 'utf8'));
    const tags = [`${repository}/${name}:${revision}`, `${repository}/${name}:${short}`];
    process.stdout.write(`images: building ${name} ${manifest.version} at ${short} on ${nodeImage}\n`);
    const build = run(
      tool,
      [
        'build',
        '--file',
        join(context, 'deploy', 'images', 'Containerfile'),
        '--target',
        name,
        '--build-arg',
        `NODE_IMAGE=${nodeImage}`,
        ...Object.entries({
          revision,
          version: manifest.version,
          source: sourceUrl(),
          licenses: manifest.license ?? rootManifest.license ?? 'NOASSERTION',
        }).flatMap(([key, value]) => ['--build-arg', `${key.toUpperCase()}=${value}`]),
        ...(process.env.NODE_EXTRA_CA_CERTS
          ? ['--secret', `id=npm_ca,src=${process.env.NODE_EXTRA_CA_CERTS}`]
          : []),
        ...tags.flatMap((tag) => ['--tag', tag]),
        context,
      ],
      { stdio: 'inherit' },
    );
    if (build.status !== 0) fail(`${tool} build of ${name} failed (output above)`);
    const file = join(outDir, `${name}.oci.tar`);
    rmSync(file, { force: true });
    const save = run(tool, ['save', '--quiet', '--format', 'oci-archive', '--output', file, tags[0]], {
      stdio: 'inherit',
    });
    if (save.status !== 0) fail(`${tool} save of ${name} failed (output above)`);
    process.stdout.write(`images: ${name}: ${tags.join(' ')} -> ${relative(root, file)}\n`);
  }
  rmSync(context, { recursive: true, force: true });
}

main(process.argv.slice(2));
