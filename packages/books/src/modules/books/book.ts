export interface BookFields {
  title: string;
  author: string;
  synopsis: string;
}

export interface Book extends BookFields {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

export type BookSortProperty = 'title' | 'author' | 'createdAt' | 'updatedAt';

export const DEFAULT_BOOK_SORT = [{ property: 'title', direction: 'asc' }] as const;
