import type { ConfigSource } from '../provider/provider.js';
import type { ConfigDocument } from './document.js';
import { readExactDocument } from './exact-reader.js';
import { readUnambiguousYaml } from './fast-reader.js';

/**
 * Reads one config source into a typed document: through the fast reader when it can vouch for
 * the result, otherwise through the exact reader, which gives the reference's errors.
 */
export function readConfigDocument(source: ConfigSource): ConfigDocument {
  const fast = source.kind === 'yaml' ? readUnambiguousYaml(source.name, source.text) : undefined;
  return fast ?? readExactDocument(source);
}
