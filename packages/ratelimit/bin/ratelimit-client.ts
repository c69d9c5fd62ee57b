#!/usr/bin/env node
// ratelimit-client: sends one ShouldRateLimit call, like the reference's client_cmd.
import { readFileSync } from 'node:fs';
import { credentials } from '@grpc/grpc-js';
import { type FlagSpec, parseFlagsOrExit } from '../src/cli/flags.js';
import { toProtoText } from '../src/cli/proto-text.js';
import { type ClientRequest, RateLimitClient } from '../src/client/client.js';

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

const client = new RateLimitClient(flags.strings.get('dial_string') ?? 'localhost:8081', channel);
try {
  const response = await client.shouldRateLimit({
    domain: flags.strings.get('domain') ?? '',
    descriptors,
    hitsAddend: 1,
  });
  process.stdout.write(`response: ${toProtoText(response)}\n`);
  client.close();
} catch (error) {
  client.close();
  fail(`request error: ${(error as Error).message}`);
}
