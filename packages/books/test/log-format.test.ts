import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort, spawnManaged, waitForPort } from '@platform/testkit';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { ConfigError, loadConfig } from '../src/config.js';
import { logDestination, resolveLogFormat, textLine } from '../src/log-format.js';
import { packageRoot } from '../src/paths.js';
import { booksLauncher } from './support/books-command.js';
import { migratedDataDir } from './support/pglite-template.js';

/** The lines the service's logger (fastify's pino) writes through `logDestination` in the given format. */
function logged(format: 'text' | 'json', log: (logger: FastifyBaseLogger) => void): string[] {
  const lines: string[] = [];
  const stream = logDestination(format, { write: (line) => lines.push(line) });
  log(Fastify({ logger: { level: 'trace', stream } }).log);
  return lines;
}

test('LOG_FORMAT wins; unset, a terminal gets text and a pipe or file gets JSON', () => {
  assert.equal(resolveLogFormat('json', { isTTY: true }), 'json');
  assert.equal(resolveLogFormat('text', { isTTY: false }), 'text');
  assert.equal(resolveLogFormat(undefined, { isTTY: true }), 'text');
  assert.equal(resolveLogFormat(undefined, { isTTY: false }), 'json');
  assert.equal(resolveLogFormat(undefined, {}), 'json');
  assert.equal(loadConfig({ LOG_FORMAT: 'text' }).logFormat, 'text');
  assert.equal(loadConfig({ LOG_FORMAT: 'json' }).logFormat, 'json');
  assert.equal(loadConfig({}).logFormat, undefined);
  assert.throws(() => loadConfig({ LOG_FORMAT: 'pretty' }), {
    name: 'Error',
    message: "invalid LOG_FORMAT 'pretty': expected text or json",
  });
  assert.throws(() => loadConfig({ LOG_FORMAT: 'pretty' }), ConfigError);
});

test('text lines are the rate limit service style: time, level, quoted msg, then the fields', () => {
  const [line] = logged('text', (logger) =>
    logger.warn(
      { reqId: 'r-1', req: { method: 'GET', url: '/books?q=a b' }, res: { statusCode: 200 } },
      'slow "read"',
    ),
  );
  assert.match(
    line ?? '',
    /^time="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z" level=warning msg="slow \\"read\\"" reqId=r-1 req\.method=GET req\.url="\/books\?q=a b" res\.statusCode=200\n$/,
  );
  assert.doesNotMatch(
    line ?? '',
    /pid=|hostname=/,
    'a terminal line leaves out what every line would repeat',
  );
  const [error] = logged('text', (logger) =>
    logger.error({ err: new Error('disk on fire\nsecond line') }, 'failed'),
  );
  assert.match(
    error ?? '',
    /^time="[^"]+" level=error msg="failed" err\.type=Error err\.message="disk on fire\\nsecond line" err\.stack="Error: disk on fire\\nsecond line\\n {4}at /,
  );
  assert.equal(error?.split('\n').length, 2, 'a stack stays on its one line');
  for (const [level, name] of [
    ['trace', 'trace'],
    ['debug', 'debug'],
    ['info', 'info'],
    ['fatal', 'fatal'],
  ] as const) {
    const lines = logged('text', (logger) => logger[level]('x'));
    assert.match(lines[0] ?? '', new RegExp(` level=${name} msg="x"\n$`));
  }
});

test('JSON lines are pino lines as they are', () => {
  const [line] = logged('json', (logger) => logger.info({ reqId: 'r-1' }, 'hello'));
  const entry = JSON.parse(line ?? '') as Record<string, unknown>;
  assert.equal(entry.level, 30);
  assert.equal(entry.msg, 'hello');
  assert.equal(entry.reqId, 'r-1');
  assert.equal(typeof entry.time, 'number');
});

test('textLine keeps a line it cannot place whole: an unknown level by its number', () => {
  assert.match(
    textLine('{"level":35,"time":0,"msg":"custom"}'),
    /^time="1970-01-01T00:00:00\.000Z" level=35 msg="custom"\n$/,
  );
});

test('books serve in a terminal writes text lines, and no line per request at the default level', async () => {
  const port = await freePort();
  // A copy of the migrated test template: a new database would cost the start an initdb of 8-16 s.
  const scratch = await mkdtemp(join(tmpdir(), 'books-log-format-'));
  const dataDir = await migratedDataDir(scratch);
  // `script` gives the command a terminal, as a person running it has; its output comes back through the pty.
  const command = `env PORT=${port} DATABASE_URL=pglite:${dataDir} ${process.execPath} ${booksLauncher} serve`;
  const service = spawnManaged('script', ['-qefc', `cd ${packageRoot} && exec ${command}`, '/dev/null']);
  try {
    await waitForPort(port, '127.0.0.1', 60_000);
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`http://127.0.0.1:${port}/books`)).status, 401);
    const listening = await waitFor(() =>
      /level=info msg="Server listening at http:\/\/127\.0\.0\.1:\d+"/.test(service.output()),
    );
    assert.ok(listening, service.output());
    const lines = service
      .output()
      .split(/\r?\n/)
      .filter((line) => line.startsWith('time='));
    assert.ok(lines.length > 0, service.output());
    assert.doesNotMatch(service.output(), /^\{"level"/m, 'no JSON line in a terminal');
    assert.doesNotMatch(service.output(), /incoming request|request completed/, 'request lines are at debug');
  } finally {
    await service.stop();
    await rm(scratch, { recursive: true, force: true });
  }
});

/** Polls for output the process has written but the pty may not have delivered yet (up to 10 s). */
async function waitFor(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !condition(); i++) await delay(50);
  return condition();
}
