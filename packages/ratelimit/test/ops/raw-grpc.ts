import {
  type ChannelCredentials,
  type Client,
  makeGenericClientConstructor,
  type Server,
  type ServiceDefinition,
  type ServiceError,
} from '@grpc/grpc-js';

/**
 * A one-method service with raw byte messages (standing in for the health service in transport
 * tests, so they need no .proto): the handler echoes the request.
 */
export const echoService: ServiceDefinition = {
  echo: {
    path: '/test.Echo/Echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: (value: Buffer) => value,
    responseDeserialize: (bytes: Buffer) => bytes,
  },
};

export function addEchoService(server: Server): void {
  server.addService(echoService, {
    echo: (call: { request: Buffer }, callback: (error: null, reply: Buffer) => void) =>
      callback(null, call.request),
  });
}

const EchoClient = makeGenericClientConstructor(echoService, 'Echo');

export function echoClient(target: string, credentials: ChannelCredentials, options: object = {}): Client {
  return new EchoClient(target, credentials, options);
}

type EchoMethod = (
  request: Buffer,
  options: object,
  callback: (error: ServiceError | null, reply?: Buffer) => void,
) => void;

/** Calls Echo once; resolves with the reply text or rejects with the gRPC error. */
export function echo(client: Client, text: string, deadlineMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const { echo: method } = client as unknown as { echo: EchoMethod };
    method.call(client, Buffer.from(text), { deadline: Date.now() + deadlineMs }, (error, reply) => {
      if (error) reject(error);
      else resolve(String(reply));
    });
  });
}
