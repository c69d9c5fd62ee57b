/**
 * What a contender costs above Node's own HTTP machinery, without sockets:
 * `node --import tsx bench/socketless.ts <contender>` calls the contender's `(req, res)` listener
 * on an IncomingMessage and a ServerResponse that no socket is under, for every benchmark route,
 * and prints the CPU time per request of each measured window as JSON, by route.
 *
 * Each request still pays for Node's request and response objects and for writing the head and
 * body into the response, as on a socket; what is left out (the parser, the socket, the kernel) is
 * the same for every contender and is most of a request's cost on loopback, which is why the
 * socket benchmark can hardly tell contenders apart whose own costs differ by a third.
 */
import { IncomingMessage, type RequestListener, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CONTENDER_FILES, isContenderFile, loadListener } from './contenders/load.js';
import { ROUTES, type Route, requestOf } from './measure.js';
import { routeLabel } from './report.js';

const CALLS_PER_WINDOW = 20_000;
const WARMUP_WINDOWS = 3;
const WINDOWS = 5;
/**
 * Requests between two turns of the event loop. Node schedules work per request (the request
 * stream's end, say) that only runs at a turn; without one, a window would pile up every request
 * it made, and the garbage collector would then copy them all.
 */
const CALLS_PER_TURN = 64;

/** No connection is ever made: the objects only need a socket to point at. */
const socket = new Socket();

/** What every request of a route carries, worked out once so the windows time the contender alone. */
interface RequestShape {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly rawHeaders: readonly string[];
  readonly body: string | undefined;
}

function shapeOf(route: Route): RequestShape {
  const { method, headers, body } = requestOf(route);
  const fields: Record<string, string> = { host: '127.0.0.1', accept: '*/*' };
  if (body !== undefined)
    Object.assign(fields, headers, { 'content-length': String(Buffer.byteLength(body)) });
  const names: Record<string, string> = {
    host: 'Host',
    accept: 'Accept',
    'content-type': 'Content-Type',
    'content-length': 'Content-Length',
  };
  const rawHeaders = Object.entries(fields).flatMap(([name, value]) => [names[name] ?? name, value]);
  return { method, path: route.path, headers: fields, rawHeaders, body };
}

function call(listener: RequestListener, shape: RequestShape): ServerResponse {
  const request = new IncomingMessage(socket);
  request.method = shape.method;
  request.url = shape.path;
  request.httpVersion = '1.1';
  request.httpVersionMajor = 1;
  request.httpVersionMinor = 1;
  // Fresh copies: a listener may add to what it is given.
  request.headers = { ...shape.headers };
  request.rawHeaders = [...shape.rawHeaders];
  if (shape.body !== undefined) request.push(shape.body);
  request.push(null);
  request.complete = true;
  const response = new ServerResponse(request);
  listener(request, response);
  return response;
}

/** The status and body written into a response, which holds them as it would for a busy socket. */
function written(response: ServerResponse): { status: number; body: string } {
  const chunks = (response as unknown as { outputData: { data: string | Uint8Array }[] }).outputData;
  const text = chunks
    .map(({ data }) => (typeof data === 'string' ? data : Buffer.from(data).toString()))
    .join('');
  const headEnd = text.indexOf('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  if (headEnd === -1 || !/\r\ncontent-length: /i.test(text.slice(0, headEnd))) {
    throw new Error(`not a whole answer with a Content-Length: ${JSON.stringify(text.slice(0, 200))}`);
  }
  return { status, body: text.slice(headEnd + 4) };
}

/** Refuses to measure a contender that answers a route wrongly. */
async function check(listener: RequestListener, route: Route): Promise<void> {
  const response = call(listener, shapeOf(route));
  for (let turn = 0; turn < 100 && !response.writableEnded; turn += 1) await nextTurn();
  const { status, body } = written(response);
  if (status !== 200 || JSON.stringify(JSON.parse(body)) !== JSON.stringify(route.body)) {
    throw new Error(`${route.path}: answered ${status} ${body}`);
  }
}

/** CPU time (all threads, the garbage collector's included) per request over one window, in ns. */
async function window(listener: RequestListener, route: Route): Promise<number> {
  const shape = shapeOf(route);
  const before = process.cpuUsage();
  let last: ServerResponse | undefined;
  for (let calls = 1; calls <= CALLS_PER_WINDOW; calls += 1) {
    last = call(listener, shape);
    if (calls % CALLS_PER_TURN === 0) await nextTurn();
  }
  await nextTurn();
  const used = process.cpuUsage(before);
  if (!last?.writableEnded || last.statusCode !== 200)
    throw new Error(`${route.path}: a request was not answered`);
  return ((used.user + used.system) * 1000) / CALLS_PER_WINDOW;
}

const [file] = process.argv.slice(2);
if (!isContenderFile(file)) throw new Error(`usage: socketless.ts <${CONTENDER_FILES.join('|')}>`);
const listener = await loadListener(file);
const perRoute: Record<string, number[]> = {};
for (const route of ROUTES) {
  await check(listener, route);
  for (let warm = 0; warm < WARMUP_WINDOWS; warm += 1) await window(listener, route);
  const windows: number[] = [];
  for (let measured = 0; measured < WINDOWS; measured += 1) windows.push(await window(listener, route));
  perRoute[routeLabel(route)] = windows;
}
process.stdout.write(`${JSON.stringify(perRoute)}\n`);
