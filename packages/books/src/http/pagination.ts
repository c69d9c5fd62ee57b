import { type Link, link } from './links.js';

export type Direction = 'asc' | 'desc';

export interface SortOrder<Property extends string> {
  property: Property;
  direction: Direction;
}

export interface PageRequest<Property extends string> {
  page: number;
  size: number;
  sort: SortOrder<Property>[];
}

export interface PageMetadata {
  size: number;
  totalElements: number;
  totalPages: number;
  number: number;
}

export interface PageLinks {
  self: Link;
  first: Link;
  prev?: Link;
  next?: Link;
  last: Link;
}

/**
 * Reads validated `page`, `size` and `sort` values. The contract has already rejected unknown
 * properties and out-of-range numbers, so this only applies defaults and splits `property,direction`.
 */
export function pageRequest<Property extends string>(
  query: { page?: number; size?: number; sort?: string[] },
  defaultSort: SortOrder<Property>[],
): PageRequest<Property> {
  const sort = (query.sort ?? []).map((entry) => {
    const [property, direction] = entry.split(',');
    return { property: property as Property, direction: direction === 'desc' ? 'desc' : 'asc' } as const;
  });
  return { page: query.page ?? 0, size: query.size ?? 20, sort: sort.length > 0 ? sort : defaultSort };
}

/** `order by` for the requested sort, always ending with the id so that equal keys keep a stable order. */
export function orderByClause<Property extends string>(
  sort: SortOrder<Property>[],
  columns: Record<Property, string>,
): string {
  const keys = sort.map(({ property, direction }) => `${columns[property]} ${direction}`);
  return `order by ${[...keys, 'id asc'].join(', ')}`;
}

export function pageMetadata(request: PageRequest<string>, totalElements: number): PageMetadata {
  return {
    size: request.size,
    totalElements,
    totalPages: Math.ceil(totalElements / request.size),
    number: request.page,
  };
}

/**
 * `self`, `first` and `last` always; `prev` unless on the first page; `next` unless on or past the last.
 * Every href repeats the size, sort and filters, so following a link keeps the same view.
 */
export function pageLinks(
  base: string,
  path: string,
  request: PageRequest<string>,
  metadata: PageMetadata,
  filters: Record<string, string | undefined> = {},
): PageLinks {
  const href = (page: number) => {
    const query = new URLSearchParams({ page: String(page), size: String(request.size) });
    for (const { property, direction } of request.sort) query.append('sort', `${property},${direction}`);
    for (const [name, value] of Object.entries(filters)) if (value !== undefined) query.set(name, value);
    return link(base, path, query);
  };
  const lastPage = Math.max(metadata.totalPages - 1, 0);
  return {
    self: href(request.page),
    first: href(0),
    ...(request.page > 0 ? { prev: href(Math.min(request.page - 1, lastPage)) } : {}),
    ...(request.page < lastPage ? { next: href(request.page + 1) } : {}),
    last: href(lastPage),
  };
}
