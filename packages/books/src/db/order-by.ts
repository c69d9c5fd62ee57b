import type { SortOrder } from '../page-request.js';

/**
 * `order by` for the requested sort, always ending with the id so that equal keys keep a stable order.
 * `columns` is typed by the contract's sort properties, so a property added to the contract without a
 * column is a compile error rather than `order by undefined`.
 */
export function orderByClause<Property extends string>(
  sort: readonly SortOrder<Property>[],
  columns: Record<Property, string>,
  /** Keys that come before the requested sort (a search's relevance). */
  leading: readonly string[] = [],
): string {
  const keys = sort.map(({ property, direction }) => `${columns[property]} ${direction}`);
  return `order by ${[...leading, ...keys, 'id asc'].join(', ')}`;
}
