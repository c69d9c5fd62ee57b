import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type App, type AppOptions, createApp } from '../../src/index.js';

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));
const scratch = join(packageRoot, '.tmp');
const sourceIndex = join(packageRoot, 'src', 'index.js');

/** What every generated controller module can use, like the reference tests' module header. */
const HEADER = `import { Controller, CallError, CallStop, Redirect, AccessDenied, authBasic, authBearer, httpCache, noHttpCache, ControllerDecorator, AuthDecorator, decorate, runBefore } from ${JSON.stringify(sourceIndex)};\n`;

const created: string[] = [];
after(() => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/**
 * Writes controller modules (path → source, the framework imports prepended) into a fresh directory
 * inside the package, so they resolve the package's dependencies, and returns that directory.
 */
export function writeControllers(files: Record<string, string>, options: { header?: boolean } = {}): string {
  mkdirSync(scratch, { recursive: true });
  const dir = mkdtempSync(join(scratch, 'controllers-'));
  created.push(dir);
  for (const [path, source] of Object.entries(files)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, options.header === false ? source : HEADER + source);
  }
  return dir;
}

/** An app over freshly written controllers. */
export function appWith(files: Record<string, string>, options: AppOptions = {}): Promise<App> {
  return createApp({ log: () => {}, ...options, controllerPrefix: writeControllers(files) });
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export interface Call {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | FormData | URLSearchParams;
}

/** One request through `app.fetch`, with the body read. */
export async function call(app: App, target: string, init: Call = {}): Promise<Reply> {
  const response = await app.fetch(
    new Request(`http://127.0.0.1${target}`, {
      method: init.method ?? 'GET',
      headers: init.headers,
      body: init.body,
    }),
  );
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
