// The baseline: raw node:http over the same database and queries, without framework, auth or links.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { baselineHandler } from '../baseline-handler.js';
import { announce, ensureBenchSession, openBenchDatabase } from './database.js';

const db = await openBenchDatabase(process.env);
const sessionSecret = process.env.BASELINE_SESSION_SECRET || undefined;
const sessionId = process.env.BASELINE_SESSION_ID;
if (sessionSecret !== undefined && sessionId) {
  await ensureBenchSession(db, createHmac('sha256', sessionSecret).update(sessionId).digest('base64url'));
}
const server = createServer(baselineHandler((sql, params) => db.query(sql, params), { sessionSecret }));
server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
process.once('SIGTERM', () => server.close(() => void db.close().then(() => process.exit(0))));
