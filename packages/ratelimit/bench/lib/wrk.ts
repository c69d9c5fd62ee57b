import { writeFile } from 'node:fs/promises';
import { LOAD_CORE, onCore, shownOnCore } from '@platform/testkit';
import { type LoadResult, shellQuote } from './load-result.js';
import { runCommand, toolPath } from './run-command.js';

export interface WrkRun {
  readonly url: string;
  /** A Lua script file for the POST (see writePostScript). */
  readonly scriptFile: string;
  readonly connections: number;
  /** Whole seconds: wrk takes no fraction of a second. */
  readonly seconds: number;
  /** Whole seconds; 0 for none. */
  readonly warmUpSeconds: number;
}

/** wrk's way to send a POST with a fixed body: a Lua script that sets the request fields. */
export async function writePostScript(file: string, body: string): Promise<void> {
  const quoted = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  await writeFile(
    file,
    `wrk.method = "POST"\nwrk.body = ${quoted(body)}\nwrk.headers["Content-Type"] = "application/json"\n`,
  );
}

/** Drives HTTP/1.1 keep-alive POSTs as fast as the server answers, with wrk (one thread). */
export async function runWrk(run: WrkRun): Promise<LoadResult> {
  const binary = toolPath('wrk', 'wrk');
  const args = [
    '-t1',
    `-c${run.connections}`,
    `-d${run.seconds}s`,
    '--latency',
    '-s',
    run.scriptFile,
    run.url,
  ];
  if (run.warmUpSeconds > 0) {
    const warmUp = ['-t1', `-c${run.connections}`, `-d${run.warmUpSeconds}s`, '-s', run.scriptFile, run.url];
    await runCommand(...onCore(LOAD_CORE, binary, warmUp), (run.warmUpSeconds + 30) * 1000);
  }
  const output = await runCommand(...onCore(LOAD_CORE, binary, args), (run.seconds + 30) * 1000);
  return {
    requestsPerSecond: number(/Requests\/sec:\s+([\d.]+)/, output),
    p50Ms: latencyMs('50%', output),
    p99Ms: latencyMs('99%', output),
    failed: failedRequests(output),
    command: shownOnCore(LOAD_CORE, ['wrk', ...args])
      .map(shellQuote)
      .join(' '),
  };
}

function number(pattern: RegExp, output: string): number {
  const match = pattern.exec(output);
  if (!match) throw new Error(`unexpected wrk output (${pattern}):\n${output}`);
  return Number(match[1]);
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/** A line of `--latency`'s distribution, e.g. `     99%    3.21ms`. */
function latencyMs(percentile: string, output: string): number {
  const match = new RegExp(`^\\s+${percentile}\\s+([\\d.]+)(us|ms|s|m)$`, 'm').exec(output);
  if (!match) throw new Error(`unexpected wrk output (no ${percentile} latency):\n${output}`);
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** `Non-2xx or 3xx responses: N` and `Socket errors: connect N, read N, write N, timeout N`. */
function failedRequests(output: string): number {
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket ? socket.slice(1).reduce((sum, value) => sum + Number(value), 0) : 0;
  return (non2xx ? Number(non2xx[1]) : 0) + socketErrors;
}
