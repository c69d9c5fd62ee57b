import { execFile } from 'node:child_process';
import { requireBinary } from '@platform/testkit';

/** Runs a load tool to completion and returns its stdout; the error names the tool and its stderr. */
export function runCommand(binary: string, args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${binary} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The path of a required binary, or an error saying which Debian package provides it. */
export function toolPath(binary: string, debianPackage: string): string {
  const found = requireBinary(binary, debianPackage);
  if (typeof found !== 'string') {
    throw new Error(found.message);
  }
  return found;
}
