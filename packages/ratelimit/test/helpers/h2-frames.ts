import { connect, type Socket } from 'node:net';

/** HTTP/2 frame types (RFC 9113 §6). */
export const FrameType = {
  DATA: 0,
  HEADERS: 1,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  CONTINUATION: 9,
} as const;
export const END_STREAM = 0x1;
export const END_HEADERS = 0x4;

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** One frame: 9-byte header, then the payload. */
export function h2Frame(
  type: number,
  flags: number,
  streamId: number,
  payload: Buffer = Buffer.alloc(0),
): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([header, payload]);
}

/** An HPACK header block of literals without indexing (RFC 7541 §6.2.2), no Huffman; names and values under 127 bytes. */
export function headerBlock(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    parts.push(
      Buffer.from([0x00, name.length]),
      Buffer.from(name),
      Buffer.from([value.length]),
      Buffer.from(value),
    );
  }
  return Buffer.concat(parts);
}

export const CALL_HEADERS = {
  ':method': 'POST',
  ':scheme': 'http',
  ':path': '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit',
  ':authority': 'localhost',
  'content-type': 'application/grpc',
  te: 'trailers',
};

/**
 * A raw HTTP/2 client connection that has sent its preface and an empty SETTINGS frame. It reads
 * nothing unless `read` is set (a flood client leaves the server's answers unread); `closed`
 * settles when the server closes the connection.
 */
export async function rawConnection(
  port: number,
  read = false,
): Promise<{
  socket: Socket;
  closed: Promise<void>;
  received: () => number;
  goaway: () => number | undefined;
}> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = 0;
  let goaway: number | undefined;
  let buffered = Buffer.alloc(0);
  if (read) {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      // Frame by frame, for the server's GOAWAY and its error code.
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 9) {
        const length = buffered.readUIntBE(0, 3);
        if (buffered.length < 9 + length) break;
        if (buffered[3] === FrameType.GOAWAY) goaway = buffered.readUInt32BE(9 + 4);
        buffered = buffered.subarray(9 + length);
      }
    });
  } else {
    socket.pause();
  }
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(Buffer.concat([PREFACE, h2Frame(FrameType.SETTINGS, 0, 0)]));
  return { socket, closed, received: () => received, goaway: () => goaway };
}

/** Writes `frames` as fast as the socket takes them, until done or the server closes; resolves to how many went. */
export async function flood(socket: Socket, frames: Iterable<Buffer>, batch = 256): Promise<number> {
  let sent = 0;
  let pending: Buffer[] = [];
  for (const frame of frames) {
    if (socket.destroyed) break;
    pending.push(frame);
    sent++;
    if (pending.length === batch) {
      const ok = socket.write(Buffer.concat(pending));
      pending = [];
      if (!ok) {
        const drained = await Promise.race([
          new Promise<boolean>((resolve) => socket.once('drain', () => resolve(true))),
          new Promise<boolean>((resolve) => socket.once('close', () => resolve(false))),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3000)),
        ]);
        if (!drained) break;
      }
    }
  }
  if (pending.length > 0 && !socket.destroyed) socket.write(Buffer.concat(pending));
  return sent;
}
