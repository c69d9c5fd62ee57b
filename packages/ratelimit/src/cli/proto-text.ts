/**
 * Renders a decoded protobuf object (camelCase fields, proto-loader defaults filled in) in
 * protobuf text format, skipping default values, as Go's `String()` prints a response.
 */
export function toProtoText(message: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [field, value] of Object.entries(message)) {
    const name = field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    for (const item of Array.isArray(value) ? value : [value]) {
      const text = renderValue(item);
      if (text !== undefined) parts.push(`${name}:${text}`);
    }
  }
  return parts.join(' ');
}

function renderValue(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '' || value === 0 || value === false)
    return undefined;
  if (value === 'UNKNOWN') return undefined;
  if (Buffer.isBuffer(value))
    return value.length === 0 ? undefined : JSON.stringify(value.toString('latin1'));
  if (typeof value === 'object') return `{${toProtoText(value as Record<string, unknown>)}}`;
  if (typeof value === 'string') return /^[A-Z][A-Z0-9_]*$/.test(value) ? value : JSON.stringify(value);
  return String(value);
}
