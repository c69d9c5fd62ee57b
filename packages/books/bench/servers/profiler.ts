import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/**
 * With BENCH_PROFILE_FILE set, the first SIGUSR2 starts V8's CPU profiler (the one `node --cpu-prof`
 * runs) and the second stops it and writes the profile there, so a profile covers the measured window
 * only, not startup, seeding and warm-up.
 */
export function profileOnSignal(file: string | undefined): void {
  if (file === undefined || file === '') return;
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    const toggle = running
      ? session.post('Profiler.stop').then(({ profile }) => writeFileSync(file, JSON.stringify(profile)))
      : session.post('Profiler.enable').then(() => session.post('Profiler.start'));
    running = !running;
    toggle.catch((error: unknown) => process.stderr.write(`profiler: ${String(error)}\n`));
  });
}
