// Ceiling: @connectrpc/connect-node serving ShouldRateLimit on node:http2 (gRPC, gRPC-Web and
// Connect on one port), answering OK at once. Usage: node dist/bench/servers/connect-noop.js <port>
import { createServer } from 'node:http2';
import { create, createFileRegistry, type DescMethodUnary } from '@bufbuild/protobuf';
import {
  FileDescriptorProtoSchema,
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
} from '@bufbuild/protobuf/wkt';
import type { ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';

/**
 * The rls.proto messages cut down to the fields the bench sends and the no-op answers, with
 * rls.proto's names and field numbers, so the bytes on the wire and the decoding work are the
 * real ones. Connect needs protobuf-es descriptors; the service's own protos go through
 * protobufjs, whose generated descriptors carry relative type names protobuf-es cannot resolve.
 */
const PACKAGE = 'envoy.service.ratelimit.v3';
const field = (
  name: string,
  number: number,
  type: Type,
  extra: { typeName?: string; repeated?: boolean } = {},
) => ({
  name,
  number,
  type,
  jsonName: name,
  label: extra.repeated ? Label.REPEATED : Label.OPTIONAL,
  ...(extra.typeName ? { typeName: `.${PACKAGE}.${extra.typeName}` } : {}),
});
const file = create(FileDescriptorProtoSchema, {
  name: 'bench/rls-noop.proto',
  package: PACKAGE,
  syntax: 'proto3',
  messageType: [
    {
      name: 'RateLimitDescriptor',
      field: [field('entries', 1, Type.MESSAGE, { typeName: 'RateLimitDescriptor.Entry', repeated: true })],
      nestedType: [{ name: 'Entry', field: [field('key', 1, Type.STRING), field('value', 2, Type.STRING)] }],
    },
    {
      name: 'RateLimitRequest',
      field: [
        field('domain', 1, Type.STRING),
        field('descriptors', 2, Type.MESSAGE, { typeName: 'RateLimitDescriptor', repeated: true }),
        field('hits_addend', 3, Type.UINT32),
      ],
    },
    {
      name: 'RateLimitResponse',
      field: [field('overall_code', 1, Type.ENUM, { typeName: 'RateLimitResponse.Code' })],
      enumType: [
        {
          name: 'Code',
          value: [
            { name: 'UNKNOWN', number: 0 },
            { name: 'OK', number: 1 },
            { name: 'OVER_LIMIT', number: 2 },
          ],
        },
      ],
    },
  ],
  service: [
    {
      name: 'RateLimitService',
      method: [
        {
          name: 'ShouldRateLimit',
          inputType: `.${PACKAGE}.RateLimitRequest`,
          outputType: `.${PACKAGE}.RateLimitResponse`,
        },
      ],
    },
  ],
});
const method = createFileRegistry(file, () => undefined).getService(`${PACKAGE}.RateLimitService`)?.method
  .shouldRateLimit;
if (method?.methodKind !== 'unary')
  throw new Error('connect-noop: ShouldRateLimit missing from its descriptor');
const OK = 1;

const port = Number(process.argv[2]);
const routes = (router: ConnectRouter) => router.rpc(method as DescMethodUnary, () => ({ overallCode: OK }));
const server = createServer(connectNodeAdapter({ routes }));
server.listen(port, '127.0.0.1');
server.on('error', (error) => {
  process.stderr.write(`connect-noop: ${error.message}\n`);
  process.exit(1);
});
process.once('SIGTERM', () => server.close());
