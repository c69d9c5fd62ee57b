#!/usr/bin/env node
// ratelimit-client: sends one ShouldRateLimit call, like the reference's client_cmd.
import { readFileSync } from 'node:fs';
import { credentials, Metadata } from '@grpc/grpc-js';
import { type FlagSpec, parseFlagsOrExit } from '../src/cli/flags.js';
import { toProtoText } from '../src/cli/proto-text.js';
import { type ClientRequest, RateLimitClient } from '../src/client/client.js';
import { type QuotaAssignment, RateLimitQuotaClient } from '../src/client/quota-client.js';
import { injectContext, SpanKind, withSpan } from '../src/observability/spans.js';
import { parseExporterProtocol, startTracing, type Tracing } from '../src/observability/tracing.js';

const FLAGS: FlagSpec[] = [
  {
    name: 'dial_string',
    kind: 'string',
    default: 'localhost:8081',
    usage: 'url of ratelimit server in <host>:<port> form',
  },
  { name: 'domain', kind: 'string', usage: 'rate limit configuration domain to query' },
  {
    name: 'descriptors',
    kind: 'list',
    usage: 'descriptor list to query in <key>=<value>,<key>=<value>,... form',
  },
  { name: 'grpc-use-tls', kind: 'bool', usage: 'use TLS to connect to the server' },
  { name: 'grpc-server-ca-file', kind: 'string', usage: 'CA file that signed the server certificate' },
  { name: 'grpc-cert-file', kind: 'string', usage: 'client certificate file (mutual TLS)' },
  { name: 'grpc-key-file', kind: 'string', usage: 'client key file (mutual TLS)' },
  {
    name: 'rlqs',
    kind: 'bool',
    usage:
      'open a Rate Limit Quota Service stream instead: each -descriptors list is a bucket, reported with one request; prints the assignments',
  },
  {
    name: 'rlqs-reports',
    kind: 'string',
    default: '1',
    usage: 'with -rlqs: how many reports to send, one a second, before exiting',
  },
  {
    name: 'oltp-protocol',
    kind: 'string',
    usage:
      'OpenTelemetry exporter protocol, http or grpc (empty: no tracing); OTEL_EXPORTER_OTLP_* give the destination',
  },
];

function fail(message: string, code = 1): never {
  process.stdout.write(`${message}\n`);
  process.exit(code);
}

const flags = parseFlagsOrExit('ratelimit-client', FLAGS);
for (const [name, value] of flags.given) process.stdout.write(`Flag: --${name}="${value}"\n`);

const descriptors: ClientRequest['descriptors'][number][] = [];
for (const list of flags.lists.get('descriptors') ?? []) {
  const entries = list.split(',').map((pair) => {
    const parts = pair.split('=');
    if (parts.length !== 2) fail('invalid descriptor list');
    return { key: parts[0] as string, value: parts[1] as string };
  });
  descriptors.push({ entries });
}

const read = (name: string) => {
  const path = flags.strings.get(name) ?? '';
  return path === '' ? null : readFileSync(path);
};
let channel = credentials.createInsecure();
if (flags.strings.get('grpc-use-tls') === 'true') {
  try {
    channel = credentials.createSsl(
      read('grpc-server-ca-file'),
      read('grpc-key-file'),
      read('grpc-cert-file'),
    );
  } catch (error) {
    fail(`error connecting: ${(error as Error).message}`);
  }
}

// The reference spells the flag -oltp-protocol; with it, the call is a client span whose trace
// context travels to the server in the request metadata.
const otlpProtocol = flags.strings.get('oltp-protocol') ?? '';
let tracing: Tracing | undefined;
if (otlpProtocol !== '') {
  try {
    tracing = await startTracing({
      enabled: true,
      exporterProtocol: parseExporterProtocol(otlpProtocol),
      serviceName: 'RateLimitClient',
      serviceNamespace: '',
      serviceInstanceId: '',
      samplingRate: 1,
    });
  } catch (error) {
    fail(`error connecting: ${(error as Error).message}`);
  }
}

if (flags.strings.get('rlqs') === 'true') {
  const reports = Number(flags.strings.get('rlqs-reports'));
  if (!Number.isInteger(reports) || reports < 1) fail('invalid -rlqs-reports: a whole number of at least 1');
  const buckets = descriptors.map((descriptor) =>
    Object.fromEntries(descriptor.entries.map((entry) => [entry.key, entry.value])),
  );
  const printed = await printAssignments(
    flags.strings.get('dial_string') ?? 'localhost:8081',
    flags.strings.get('domain') ?? '',
    buckets,
    reports,
    channel,
  ).catch((error: Error) => fail(`stream error: ${error.message}`));
  process.exit(printed > 0 ? 0 : 1);
}

const client = new RateLimitClient(flags.strings.get('dial_string') ?? 'localhost:8081', channel);
try {
  const request = { domain: flags.strings.get('domain') ?? '', descriptors, hitsAddend: 1 };
  const response = await withSpan('ShouldRateLimit', { kind: SpanKind.CLIENT }, () =>
    client.shouldRateLimit(request, injectContext(new Metadata())),
  );
  process.stdout.write(`response: ${toProtoText(response)}\n`);
  client.close();
  await tracing?.shutdown();
} catch (error) {
  client.close();
  await tracing?.shutdown();
  fail(`request error: ${(error as Error).message}`);
}

/**
 * -rlqs: reports one request per bucket, `reports` times a second apart, and prints every action
 * the server sends: the first report's answer, then whatever comes until a second after the last
 * report (the server answers a later report only when a strategy changes or its renewal is due).
 * Resolves to the number of assignments.
 */
async function printAssignments(
  address: string,
  domain: string,
  buckets: ReadonlyArray<Record<string, string>>,
  reports: number,
  channel: ReturnType<typeof credentials.createInsecure>,
): Promise<number> {
  const quota = new RateLimitQuotaClient({ address, domain, credentials: channel, reportIntervalMs: 0 });
  let printed = 0;
  quota.on('assignment', (assignment: QuotaAssignment) => {
    printed++;
    process.stdout.write(
      `assignment: bucket:${JSON.stringify(assignment.bucket)} strategy:${JSON.stringify(assignment.strategy)} ttl_ms:${assignment.ttlMs}\n`,
    );
  });
  quota.on('abandon', (bucket: Record<string, string>) => {
    process.stdout.write(`abandon: bucket:${JSON.stringify(bucket)}\n`);
  });
  try {
    const failed = new Promise<never>((_, reject) => quota.once('error', reject));
    // An error once the reports are done (the stream closing) is no one's to handle.
    failed.catch(() => undefined);
    const second = () => Promise.race([failed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    for (const bucket of buckets) quota.take(bucket);
    quota.reportNow();
    await Promise.race([
      failed,
      new Promise<void>((resolve) => {
        const check = () => {
          if (printed >= buckets.length) {
            quota.off('assignment', check);
            resolve();
          }
        };
        quota.on('assignment', check);
      }),
    ]);
    for (let sent = 1; sent < reports; sent++) {
      await second();
      for (const bucket of buckets) quota.take(bucket);
      quota.reportNow();
    }
    if (reports > 1) await second();
  } finally {
    quota.close();
  }
  return printed;
}
