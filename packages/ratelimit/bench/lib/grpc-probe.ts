import { connect } from 'node:http2';

/**
 * Sends the pre-encoded frame once over plain HTTP/2, the way h2load will, and fails unless the
 * server answers grpc-status 0 with a message: h2load itself counts any HTTP 200 as a success.
 */
export function probeGrpc(port: number, path: string, frame: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    stream.on('trailers', (trailers) => {
      const status = trailers['grpc-status'];
      session.close();
      if (status === '0' && bytes > 5) resolve();
      else
        reject(
          new Error(`gRPC probe on port ${port}: grpc-status ${status} ${trailers['grpc-message'] ?? ''}`),
        );
    });
    stream.on('error', reject);
    stream.end(frame);
  });
}
