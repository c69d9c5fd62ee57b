/** A one-rule rate limit config file: `key: k` (any value) limited to `requests` per `unit`. */
export function limitYaml(domain: string, requests: number, unit: string): string {
  return `domain: ${domain}\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: ${unit}\n      requests_per_unit: ${requests}\n`;
}
