import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { spawnManaged } from '@platform/testkit';
import { createLogger, parseLogLevel, resolveLogFormat } from '../../src/observability/logger.js';
import { readSettings } from '../../src/settings.js';

test('LOG_FORMAT=json writes lines with @message, @timestamp and level', () => {
  const lines: string[] = [];
  const logger = createLogger({ level: 'DEBUG', format: 'json' }, (line) => lines.push(line));
  logger.debug({ domain: 'basic' }, 'config loaded');
  logger.warn('redis is slow');
  logger.trace('not written at debug');
  const parsed = lines.map((line) => JSON.parse(line));
  assert.equal(parsed.length, 2);
  assert.equal(parsed[0]['@message'], 'config loaded');
  assert.equal(parsed[0].level, 'debug');
  assert.equal(parsed[0].domain, 'basic');
  assert.equal(parsed[1].level, 'warning');
  for (const line of parsed) assert.ok(!Number.isNaN(Date.parse(line['@timestamp'])), line['@timestamp']);
});

test('LOG_FORMAT=text writes logrus-style lines and the default WARN level hides info', () => {
  const lines: string[] = [];
  const logger = createLogger({ level: 'WARN', format: 'text' }, (line) => lines.push(line));
  logger.info('hidden');
  logger.error({ key: 'a b' }, 'store failed');
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /^time="[^"]+" level=error msg="store failed" key="a b"\n$/);
});

test('an unknown LOG_LEVEL is a clear error; logrus names map onto pino levels', () => {
  assert.throws(() => parseLogLevel('loud'), /LOG_LEVEL: unknown level 'loud'/);
  assert.equal(parseLogLevel('Warning'), 'warn');
  assert.equal(parseLogLevel('panic'), 'fatal');
});

test('LOG_FORMAT wins; unset, a terminal gets text and a pipe or file gets JSON', () => {
  assert.equal(readSettings({}).log.format, undefined);
  assert.equal(readSettings({ LOG_FORMAT: 'Text' }).log.format, 'text');
  assert.equal(resolveLogFormat('json', { isTTY: true }), 'json');
  assert.equal(resolveLogFormat('text', { isTTY: false }), 'text');
  assert.equal(resolveLogFormat(undefined, { isTTY: true }), 'text');
  assert.equal(resolveLogFormat(undefined, { isTTY: false }), 'json');
  assert.throws(
    () => readSettings({ LOG_FORMAT: 'logfmt' }),
    /LOG_FORMAT: 'logfmt' is not one of text, json$/,
  );
});

test('the server in a terminal writes text lines without LOG_FORMAT', { timeout: 120_000 }, async () => {
  const quickstart = fileURLToPath(new URL('../../examples/quickstart.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../../../../node_modules/.bin/tsx', import.meta.url));
  // `script` gives the server a terminal, as a person running it has; its output comes back through the pty.
  const ports = 'PORT=0 GRPC_PORT=0 DEBUG_PORT=0';
  const server = spawnManaged('script', [
    '-qefc',
    `env -u LOG_FORMAT ${ports} ${tsx} ${quickstart}`,
    '/dev/null',
  ]);
  try {
    for (let i = 0; i < 1200 && !server.output().includes('ratelimit service started'); i++) await delay(50);
    assert.match(server.output(), /^time="[^"]+" level=info msg="ratelimit service started"/m);
    assert.doesNotMatch(server.output(), /^\{/m, 'no JSON line in a terminal');
  } finally {
    await server.stop();
  }
});
