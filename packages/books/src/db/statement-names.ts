/**
 * Names SQL texts for pg's prepared statements: pg parses a named statement once per pooled connection
 * and afterwards only binds and executes it, so PostgreSQL skips parsing (and, once it settles on a
 * generic plan, planning) on every repeat. The service repeats a few texts on every request; list orders
 * combine into many, so only the first `limit` distinct texts get a name and the rest run unnamed.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly limit = 256) {}

  nameFor(sql: string): string | undefined {
    const known = this.names.get(sql);
    if (known !== undefined || this.names.size >= this.limit) return known;
    const name = `books_${this.names.size + 1}`;
    this.names.set(sql, name);
    return name;
  }
}
