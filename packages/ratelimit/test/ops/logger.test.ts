import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, parseLogLevel } from '../../src/observability/logger.js';

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
