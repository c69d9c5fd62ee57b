import type { JsonValue, RateLimitRequest } from './messages.js';

/**
 * RESPONSE_DYNAMIC_METADATA: the request echoed back as
 * `{domain, descriptors:[{entries:["k=v"], limit?, hitsAddend?}], hitsAddend?}`.
 */
export function buildDynamicMetadata(request: RateLimitRequest): { [key: string]: JsonValue } {
  const descriptors = request.descriptors.map((descriptor) => {
    const out: { [key: string]: JsonValue } = {
      entries: descriptor.entries.map((entry) => `${entry.key}=${entry.value}`),
    };
    if (descriptor.limit) {
      out.limit = `requests_per_unit:${descriptor.limit.requestsPerUnit} unit:${descriptor.limit.unit}`;
    }
    if (descriptor.hitsAddend) out.hitsAddend = Number(descriptor.hitsAddend.value);
    return out;
  });
  const metadata: { [key: string]: JsonValue } = { domain: request.domain, descriptors };
  if (request.hitsAddend > 0) metadata.hitsAddend = request.hitsAddend;
  return metadata;
}
