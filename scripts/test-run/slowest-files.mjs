// A node:test reporter that writes nothing but the "slowest files" block of `npm test`: the ten test files
// that took longest, each as the wall time from its process's start to its end, so a contributor sees
// where the suite's time goes without a second run.
import { relative } from 'node:path';

const root = process.cwd();
const SHOWN = 10;

export default async function* slowestFiles(source) {
  const files = [];
  for await (const event of source) {
    // The runner closes each file with a test:complete event named by the file's own path.
    if (event.type !== 'test:complete' || event.data.nesting !== 0) continue;
    const { name, file, details } = event.data;
    if (file === undefined || name !== file) continue;
    files.push({ file: relative(root, file), ms: details?.duration_ms ?? 0 });
  }
  yield render(files);
}

function render(files) {
  const slowest = [...files].sort((a, b) => b.ms - a.ms).slice(0, SHOWN);
  const width = Math.max(0, ...slowest.map((entry) => seconds(entry.ms).length));
  return [
    `\n== slowest ${slowest.length} of ${files.length} test files (wall time of each file's process)`,
    ...slowest.map((entry) => `  ${seconds(entry.ms).padStart(width)}  ${entry.file}`),
    '',
  ].join('\n');
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}
