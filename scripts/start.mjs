#!/usr/bin/env node
// `npm start`: every system on loopback with its embedded defaults, its output prefixed by its name,
// then one "ready" table once all of them listen. Ctrl-C stops them all; so does one of them exiting.
// Each port is a setting of its own (RATELIMIT_PORT, ENDPOINTS_PORT, BOOKS_PORT, ...), so no two
// systems read one variable: a PORT in the environment is not passed on.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 180_000;

/** Settings of `npm start` and their defaults: one port each. */
const PORT_SETTINGS = {
  RATELIMIT_PORT: 8080,
  RATELIMIT_GRPC_PORT: 8081,
  RATELIMIT_DEBUG_PORT: 6070,
  ENDPOINTS_PORT: 8000,
  BOOKS_PORT: 3000,
  BOOKS_IDP_PORT: 3001,
};

/** Variables a system reads for its own address; set per system below, never inherited. */
const ADDRESS_VARIABLES = ['PORT', 'HOST', 'GRPC_PORT', 'GRPC_HOST', 'DEBUG_PORT', 'DEBUG_HOST'];

function fail(message) {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(1);
}

function readPorts(env) {
  const ports = {};
  for (const [name, fallback] of Object.entries(PORT_SETTINGS)) {
    const raw = env[name];
    const port = raw === undefined || raw === '' ? fallback : Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      fail(`invalid ${name} '${raw}': expected a port from 1 to 65535`);
    }
    const twin = Object.entries(ports).find(([, other]) => other === port);
    if (twin) fail(`${twin[0]} and ${name} are both ${port}; give each its own port`);
    ports[name] = port;
  }
  return ports;
}

/** What each system is started with and where it can be tried, from the port settings. */
function systems(ports) {
  const rl = `${HOST}:${ports.RATELIMIT_PORT}`;
  const grpc = `${HOST}:${ports.RATELIMIT_GRPC_PORT}`;
  const debug = `${HOST}:${ports.RATELIMIT_DEBUG_PORT}`;
  const endpoints = `${HOST}:${ports.ENDPOINTS_PORT}`;
  const books = `${HOST}:${ports.BOOKS_PORT}`;
  return [
    {
      name: 'ratelimit',
      env: {
        PORT: ports.RATELIMIT_PORT,
        GRPC_PORT: ports.RATELIMIT_GRPC_PORT,
        DEBUG_PORT: ports.RATELIMIT_DEBUG_PORT,
      },
      args: [],
      ready: [
        [
          ports.RATELIMIT_PORT,
          'RATELIMIT_PORT',
          `http://${rl}`,
          `curl -s -XPOST ${rl}/json -d '{"domain":"basic","descriptors":[{"entries":[{"key":"one_per_minute","value":"me"}]}]}'`,
        ],
        [
          ports.RATELIMIT_GRPC_PORT,
          'RATELIMIT_GRPC_PORT',
          `grpc ${grpc}`,
          `npx ratelimit-client -dial_string ${grpc} -domain rl -descriptors foo=bar`,
        ],
        [ports.RATELIMIT_DEBUG_PORT, 'RATELIMIT_DEBUG_PORT', `http://${debug}`, `curl -s ${debug}/rlconfig`],
      ],
    },
    {
      name: 'endpoints',
      env: {},
      args: ['--host', endpoints],
      ready: [[ports.ENDPOINTS_PORT, 'ENDPOINTS_PORT', `http://${endpoints}`, `curl -s ${endpoints}/foo`]],
    },
    {
      name: 'books',
      env: { PORT: ports.BOOKS_PORT, OIDC_DEV_ISSUER: `http://localhost:${ports.BOOKS_IDP_PORT}` },
      args: [],
      ready: [
        [
          ports.BOOKS_PORT,
          'BOOKS_PORT',
          `http://${books}`,
          `open http://${books}/login as alice, bob or admin (password = user name); API docs at /swagger-ui.html`,
        ],
        [
          ports.BOOKS_IDP_PORT,
          'BOOKS_IDP_PORT',
          `http://localhost:${ports.BOOKS_IDP_PORT}`,
          'the development identity provider the login uses',
        ],
      ],
    },
  ];
}

function isFree(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, HOST, () => probe.close(() => resolve(true)));
  });
}

function answers(port) {
  return new Promise((resolve) => {
    const socket = connect({ port, host: HOST });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function prefixLines(name, stream, target) {
  let pending = '';
  stream.on('data', (chunk) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) target.write(`[${name}] ${line}\n`);
  });
  stream.on('end', () => pending && target.write(`[${name}] ${pending}\n`));
}

/** Signals a system's whole process group: npm, its shell, tsx and the server itself. */
function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

function readyTable(started) {
  const rows = started.flatMap((system) =>
    system.ready.map(([, , address, hint], index) => [index === 0 ? system.name : '', address, hint]),
  );
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => row[column].length)));
  const lines = rows.map(
    ([name, address, hint]) => `  ${name.padEnd(widths[0])}  ${address.padEnd(widths[1])}  ${hint}`,
  );
  return `\nready (Ctrl-C stops all):\n${lines.join('\n')}\n\n`;
}

const ports = readPorts(process.env);
if (process.env.PORT) {
  process.stdout.write(
    `npm start: PORT=${process.env.PORT} is not passed on (each system has its own port); use ${Object.keys(PORT_SETTINGS).join(', ')}\n`,
  );
}
const started = systems(ports);
for (const system of started) {
  for (const [port, setting] of system.ready) {
    if (!(await isFree(port)))
      fail(`port ${HOST}:${port} (${setting}) is in use; set ${setting} to a free port`);
  }
}

const children = new Map();
let stopping = false;
let exitCode = 0;

function stopAll() {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) signalGroup(child, 'SIGTERM');
  // A system that ignores SIGTERM must not keep the others' terminal hostage.
  setTimeout(() => process.exit(exitCode), 5000).unref();
}

const inherited = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !ADDRESS_VARIABLES.includes(name)),
);
// One log style for the product: the systems' output reaches the terminal through pipes, so each would see
// no terminal; they are told the style this script's own output calls for (LOG_FORMAT given wins).
inherited.LOG_FORMAT = process.env.LOG_FORMAT || (process.stdout.isTTY ? 'text' : 'json');
for (const system of started) {
  // Each system in its own process group, so stopping reaches every process npm started for it,
  // whether the stop comes from Ctrl-C or from a SIGTERM sent to this script alone.
  const args = ['run', '--silent', 'start', ...(system.args.length > 0 ? ['--', ...system.args] : [])];
  const child = spawn('npm', args, {
    cwd: join(root, 'packages', system.name),
    env: { ...inherited, ...Object.fromEntries(Object.entries(system.env).map(([k, v]) => [k, String(v)])) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.set(system.name, child);
  prefixLines(system.name, child.stdout, process.stdout);
  prefixLines(system.name, child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    children.delete(system.name);
    if (!stopping) {
      process.stderr.write(`[${system.name}] exited (${signal ?? `code ${code}`}); stopping the others\n`);
      exitCode = 1;
      stopAll();
    }
    if (children.size === 0) process.exit(exitCode);
  });
}
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);

const waiting = started.flatMap((system) => system.ready.map(([port]) => port));
const deadline = Date.now() + READY_TIMEOUT_MS;
while (!stopping && Date.now() < deadline) {
  const answered = await Promise.all(waiting.map(answers));
  if (answered.every(Boolean)) {
    process.stdout.write(readyTable(started));
    break;
  }
  await delay(250);
}
