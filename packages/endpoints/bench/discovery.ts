/**
 * Times application startup over a generated tree of controller modules, in a fresh process so the
 * module cache is cold. Usage: tsx bench/discovery.ts <prefix dir>; prints one JSON line.
 */
import { performance } from 'node:perf_hooks';
import { createApp } from '@platform/endpoints';

const prefix = process.argv[2];
if (!prefix) throw new Error('usage: discovery.ts <prefix dir>');
const started = performance.now();
const app = await createApp({ controllerPrefix: prefix });
const elapsedMs = performance.now() - started;
let nodes = 0;
const stack = [app.routes];
while (stack.length > 0) {
  const node = stack.pop();
  if (!node) break;
  if (node.handlers) nodes += 1;
  stack.push(...node.children.values());
}
process.stdout.write(`${JSON.stringify({ elapsedMs, routes: nodes })}\n`);
