/** What a list operation asks for: a 0-based page, its size and the sort keys, in contract terms. */
export type Direction = 'asc' | 'desc';

/** The property named by a contract sort key (`title`, `title,asc` or `title,desc` → `title`). */
export type SortPropertyOf<Key extends string> = Key extends `${infer Property},${Direction}`
  ? Property
  : Key;

export interface SortOrder<Property extends string> {
  property: Property;
  direction: Direction;
}

export interface PageRequest<Property extends string> {
  page: number;
  size: number;
  sort: SortOrder<Property>[];
}
