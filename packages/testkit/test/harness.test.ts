import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { serviceSkip, startMemcached, startRedis } from '../src/index.js';

function roundTrip(port: number, payload: string, until: (reply: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let reply = '';
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (until(reply)) {
        socket.end();
        resolve(reply);
      }
    });
    socket.once('error', reject);
    socket.write(payload);
  });
}

/** A zombie (state Z) has exited; only its process-table entry waits to be reaped. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function pgrep(name: string): number[] {
  try {
    return execFileSync('pgrep', ['-x', name], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map(Number)
      .filter(isAlive);
  } catch {
    return [];
  }
}

test('startRedis runs a throwaway redis-server that answers and is gone after stop', {
  skip: serviceSkip('redis-server', 'redis-server'),
}, async () => {
  const redis = await startRedis();
  try {
    assert.ok(pgrep('redis-server').includes(redis.process.pid));
    const reply = await roundTrip(redis.port, 'PING\r\n', (r) => r.endsWith('\r\n'));
    assert.equal(reply, '+PONG\r\n');
  } finally {
    await redis.stop();
  }
  assert.equal(isAlive(redis.process.pid), false);
  // Only this test's process is checked: other test files start their own servers concurrently.
  assert.ok(!pgrep('redis-server').includes(redis.process.pid));
});

test('startMemcached runs a throwaway memcached that stores a value and is gone after stop', {
  skip: serviceSkip('memcached', 'memcached'),
}, async () => {
  const memcached = await startMemcached();
  try {
    assert.ok(pgrep('memcached').includes(memcached.process.pid));
    const reply = await roundTrip(memcached.port, 'set k 0 0 2\r\nhi\r\nget k\r\n', (r) =>
      r.endsWith('END\r\n'),
    );
    assert.equal(reply, 'STORED\r\nVALUE k 0 2\r\nhi\r\nEND\r\n');
  } finally {
    await memcached.stop();
  }
  assert.equal(isAlive(memcached.process.pid), false);
  assert.ok(!pgrep('memcached').includes(memcached.process.pid));
});

test('a test process that crashes still leaves no redis-server behind', {
  skip: serviceSkip('redis-server', 'redis-server'),
}, async () => {
  const fixture = fileURLToPath(new URL('./fixtures/abandon-redis.ts', import.meta.url));
  const result = spawnSync(process.execPath, ['--import', 'tsx', fixture], { encoding: 'utf8' });
  assert.notEqual(result.status, 0, 'the fixture is meant to crash');
  assert.match(result.stderr, /crashing on purpose/);
  const pid = Number(result.stdout.trim());
  assert.ok(pid > 0, `fixture printed no pid: ${result.stdout} ${result.stderr}`);
  // SIGKILL is delivered at once, but the orphan is reaped by init a moment later.
  const deadline = Date.now() + 2000;
  while (isAlive(pid) && Date.now() < deadline) await delay(20);
  assert.equal(isAlive(pid), false, `redis-server ${pid} outlived the crashed test process`);
});
