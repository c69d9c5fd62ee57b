import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  /** The service.name of the span's resource. */
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  status?: { code?: number };
  kind?: number;
  /** The span's attributes, string and integer values as they were sent. */
  attributes: Record<string, string | number | undefined>;
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number };
}

interface ExportRequest {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans: Array<{
      spans: Array<Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: OtlpAttribute[] }>;
    }>;
  }>;
}

/** An OTLP/HTTP (JSON) trace receiver on loopback: collects the spans and resource attributes it is sent. */
export async function otlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const resources: Array<Record<string, string | undefined>> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      for (const resourceSpans of (JSON.parse(body) as ExportRequest).resourceSpans) {
        const attributes = Object.fromEntries(
          resourceSpans.resource.attributes.map((a) => [a.key, a.value.stringValue]),
        );
        resources.push(attributes);
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) {
            spans.push({
              ...span,
              service: attributes['service.name'] ?? '',
              attributes: Object.fromEntries(
                (span.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? Number(a.value.intValue)]),
              ),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    spans,
    resources,
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}
