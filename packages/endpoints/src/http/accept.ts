/** One entry of an Accept header: `type/subtype;param=value;q=0.5`. */
export interface AcceptEntry {
  readonly type: string;
  readonly subtype: string;
  readonly params: Readonly<Record<string, string>>;
  readonly q: number;
  /** The entry as sent. */
  readonly raw: string;
}

function wildcards(entry: AcceptEntry): number {
  return (entry.type === '*' ? 1 : 0) + (entry.subtype === '*' ? 1 : 0);
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}

/**
 * The Accept header's media types, most preferred first, after the reference's AcceptHeader: by q
 * (default 1), then the more specific (fewer wildcards, then more parameters) first.
 * `text/*;q=0.3, text/html;q=0.7, text/html;level=1, text/html;level=2;q=0.4, *\/*;q=0.5` orders to
 * `text/html;level=1`, `text/html;q=0.7`, `*\/*;q=0.5`, `text/html;level=2;q=0.4`, `text/*;q=0.3`.
 */
export class AcceptHeader implements Iterable<AcceptEntry> {
  readonly entries: readonly AcceptEntry[];

  constructor(header: string | undefined | null) {
    const entries: AcceptEntry[] = [];
    for (const part of (header ?? '').split(',')) {
      const raw = part.trim();
      if (raw === '') continue;
      const [mediaType = '', ...rest] = raw.split(';');
      const [type = '', subtype = '*'] = mediaType.trim().toLowerCase().split('/');
      const params: Record<string, string> = {};
      let q = 1;
      for (const param of rest) {
        const equals = param.indexOf('=');
        if (equals === -1) continue;
        const name = param.slice(0, equals).trim().toLowerCase();
        const value = unquote(param.slice(equals + 1).trim());
        if (name === 'q') q = Number.isFinite(Number(value)) ? Number(value) : 0;
        else params[name] = value;
      }
      entries.push({ type, subtype, params, q, raw });
    }
    this.entries = entries.sort(
      (a, b) =>
        b.q - a.q ||
        wildcards(a) - wildcards(b) ||
        Object.keys(b.params).length - Object.keys(a.params).length,
    );
  }

  [Symbol.iterator](): Iterator<AcceptEntry> {
    return this.entries[Symbol.iterator]();
  }

  /**
   * Entries that accept `mediaType` (wildcards match either way), in preference order; every
   * `params` key must be present with that value (`filter('application/json', { version: 'v1' })`).
   */
  filter(mediaType = '*/*', params: Record<string, string> = {}): AcceptEntry[] {
    const [type = '*', subtype = '*'] = mediaType.toLowerCase().split('/');
    return this.entries.filter(
      (entry) =>
        (entry.type === '*' || type === '*' || entry.type === type) &&
        (entry.subtype === '*' || subtype === '*' || entry.subtype === subtype) &&
        Object.entries(params).every(([name, value]) => entry.params[name] === value),
    );
  }
}
