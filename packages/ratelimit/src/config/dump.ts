import type { Limit, RateLimitConfig } from './tree.js';

/**
 * /rlconfig: one line per rule with a rate_limit, as the reference's Dump() prints it; a rule
 * with `rate_limits` prints a line per limit, and the new fields follow when not the default.
 */
export function dumpConfig(config: RateLimitConfig | undefined): string {
  if (!config) return '';
  let out = '';
  for (const rule of config.rules) {
    const head = `${rule.fullKey}: unit=`;
    const shadow = `, shadow_mode: ${rule.shadowMode}`;
    if (rule.limits.length === 0) {
      out += `${head}${rule.unit ?? 'UNKNOWN'} requests_per_unit=${rule.requestsPerUnit}${shadow}\n`;
    }
    for (const limit of rule.limits) {
      out += `${head}${limit.unit} requests_per_unit=${limit.requestsPerUnit}${shadow}${newFields(limit)}\n`;
    }
  }
  return out;
}

function newFields(limit: Limit): string {
  let out = '';
  if (limit.algorithm !== 'fixed_window') out += `, algorithm: ${limit.algorithm}`;
  if (limit.algorithm === 'token_bucket') out += `, burst: ${limit.threshold}`;
  if (limit.unitMultiplier !== 1) out += `, unit_multiplier: ${limit.unitMultiplier}`;
  return out;
}
