import type { RateLimitConfig } from './tree.js';

/** /rlconfig: one line per rule with a rate_limit, as the reference's Dump() prints it. */
export function dumpConfig(config: RateLimitConfig | undefined): string {
  if (!config) return '';
  let out = '';
  for (const rule of config.rules) {
    out += `${rule.fullKey}: unit=${rule.unit ?? 'UNKNOWN'} requests_per_unit=${rule.requestsPerUnit}, shadow_mode: ${rule.shadowMode}\n`;
  }
  return out;
}
