import { createSocket, type RemoteInfo } from 'node:dgram';
import { once } from 'node:events';

export interface SrvAnswer {
  readonly priority: number;
  readonly weight: number;
  readonly port: number;
  /** Host name or IP literal the record points at. */
  readonly target: string;
}

export interface DnsStub {
  readonly host: string;
  readonly port: number;
  /** `127.0.0.1:<port>`, for dns.Resolver#setServers. */
  readonly address: string;
  /** Replaces the SRV records served for `name` (an empty list answers NXDOMAIN). */
  setSrv(name: string, answers: readonly SrvAnswer[]): void;
  /** Number of queries answered so far, to observe re-resolution. */
  queries(): number;
  stop(): Promise<void>;
}

const TYPE_SRV = 33;
const CLASS_IN = 1;

/**
 * A minimal authoritative DNS server over UDP on loopback that answers SRV questions from an
 * in-memory table (and NXDOMAIN or an empty answer otherwise). Enough for a resolver pointed at it
 * with dns.Resolver#setServers; never reachable from outside 127.0.0.1.
 */
export async function startDnsStub(): Promise<DnsStub> {
  const records = new Map<string, readonly SrvAnswer[]>();
  let answered = 0;
  const socket = createSocket('udp4');
  socket.on('message', (message: Buffer, peer: RemoteInfo) => {
    const reply = answer(message, records);
    if (!reply) return;
    answered += 1;
    socket.send(reply, peer.port, peer.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const { port } = socket.address();
  return {
    host: '127.0.0.1',
    port,
    address: `127.0.0.1:${port}`,
    setSrv: (name, answers) => records.set(normalize(name), answers),
    queries: () => answered,
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** Builds the reply to one query, or undefined for a packet that is not a readable query. */
function answer(query: Buffer, records: Map<string, readonly SrvAnswer[]>): Buffer | undefined {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    const length = query[at] as number;
    labels.push(query.toString('latin1', at + 1, at + 1 + length));
    at += 1 + length;
  }
  const questionEnd = at + 5;
  if (questionEnd > query.length) return undefined;
  const qtype = query.readUInt16BE(at + 1);
  const name = normalize(labels.join('.'));
  const known = records.get(name);
  const answers = qtype === TYPE_SRV && known ? known : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR + AA + RD echoed + RA; rcode 3 (NXDOMAIN) for a name we do not know.
  const rd = query.readUInt16BE(2) & 0x0100;
  header.writeUInt16BE(0x8480 | rd | (known && known.length > 0 ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  const parts = [header, query.subarray(12, questionEnd)];
  for (const srv of answers) {
    const target = encodeName(srv.target);
    const record = Buffer.alloc(12 + 6);
    record.writeUInt16BE(0xc00c, 0); // pointer to the question's name
    record.writeUInt16BE(TYPE_SRV, 2);
    record.writeUInt16BE(CLASS_IN, 4);
    record.writeUInt32BE(5, 6); // TTL seconds
    record.writeUInt16BE(6 + target.length, 10);
    record.writeUInt16BE(srv.priority, 12);
    record.writeUInt16BE(srv.weight, 14);
    record.writeUInt16BE(srv.port, 16);
    parts.push(record, target);
  }
  return Buffer.concat(parts);
}

function encodeName(name: string): Buffer {
  const parts = normalize(name)
    .split('.')
    .filter((label) => label !== '')
    .map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'latin1')]));
  return Buffer.concat([...parts, Buffer.from([0])]);
}
