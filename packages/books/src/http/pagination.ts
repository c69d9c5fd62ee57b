import type { PageRequest, SortPropertyOf } from '../page-request.js';
import { type Link, link } from './links.js';

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

/** A query value the contract gives a default: request validation has filled it in before any handler runs. */
function filledIn<T>(value: T | undefined, name: string): T {
  if (value === undefined)
    throw new Error(`query parameter '${name}' has no value although the contract gives it a default`);
  return value;
}

/**
 * Reads validated `page`, `size` and `sort` values. The contract has already rejected unknown sort keys
 * and out-of-range numbers and filled in its defaults, so this only splits `property,direction`.
 */
export function pageRequest<Key extends string>(query: {
  page?: number;
  size?: number;
  sort?: Key[];
}): PageRequest<SortPropertyOf<Key>> {
  const sort = filledIn(query.sort, 'sort').map((key) => {
    const [property, direction] = key.split(',');
    return {
      property: property as SortPropertyOf<Key>,
      direction: direction === 'desc' ? ('desc' as const) : ('asc' as const),
    };
  });
  return { page: filledIn(query.page, 'page'), size: filledIn(query.size, 'size'), sort };
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
  filters: Record<string, string | boolean | undefined> = {},
): PageLinks {
  const href = (page: number) => {
    const query = new URLSearchParams({ page: String(page), size: String(request.size) });
    for (const { property, direction } of request.sort) query.append('sort', `${property},${direction}`);
    for (const [name, value] of Object.entries(filters))
      if (value !== undefined) query.set(name, String(value));
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
