/**
 * One contender on a socket, for the benchmark and `bench/profile.ts`:
 * `node --import tsx bench/serve.ts <contender>` (a file name under `bench/contenders/`). Prints
 * `listening <port>` once bound on 127.0.0.1, which the runner waits for.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTENDER_FILES, isContenderFile, loadListener } from './contenders/load.js';

const [file] = process.argv.slice(2);
if (!isContenderFile(file)) throw new Error(`usage: serve.ts <${CONTENDER_FILES.join('|')}>`);
// An orderly exit on SIGTERM, so a server run with `--cpu-prof` (bench/profile.ts) writes its profile.
process.once('SIGTERM', () => process.exit(0));
const server = createServer(await loadListener(file));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
