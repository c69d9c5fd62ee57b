import type { PageMetadata } from '../../http/pagination.js';
import type { Book } from '../../modules/books/book.js';
import { html, type SafeHtml } from '../../pages/html.js';
import { PATHS } from '../../pages/paths.js';
import { availability } from '../text.js';
import { pager } from './components.js';

export interface HomeView {
  books: readonly Book[];
  metadata: PageMetadata;
  q: string | undefined;
  /** The sort keys as the query carries them (`title,asc`). */
  sort: readonly string[];
  size: number;
}

/** The orders a person picks from; any other order the contract allows still works through the URL. */
const SORTS: [string, string][] = [
  ['title,asc', 'Title'],
  ['author,asc', 'Author'],
  ['createdAt,desc', 'Newest'],
];

function query(view: HomeView, sort: readonly string[]): URLSearchParams {
  const params = new URLSearchParams();
  if (view.q !== undefined) params.set('q', view.q);
  for (const key of sort) params.append('sort', key);
  if (view.size !== 20) params.set('size', String(view.size));
  return params;
}

function sortLinks(view: HomeView): SafeHtml {
  const current = view.sort.join(';');
  const links = SORTS.map(([key, label]) => {
    const href = `${PATHS.home}?${query(view, [key]).toString()}`;
    return html`<li><a href="${href}"${key === current ? html` aria-current="true"` : ''}>${label}</a></li>`;
  });
  return html`<nav class="sort" aria-label="Sort"><span>Sort by</span><ul>${links}</ul></nav>`;
}

function bookItem(book: Book): SafeHtml {
  return html`<li class="card"><h2><a href="${PATHS.book(book.id)}">${book.title}</a></h2>
<p class="author">by ${book.author}</p><p class="availability${book.available > 0 ? ' free' : ''}">${availability(book)}</p>${
    book.heldByCaller ? html`<p class="badge">You have reserved this book</p>` : ''
  }</li>`;
}

function summary(view: HomeView): string {
  const total = view.metadata.totalElements;
  const books = total === 1 ? '1 book' : `${total} books`;
  if (view.q === undefined) return books;
  return `${total === 1 ? '1 book matches' : `${books} match`} “${view.q}”`;
}

/** `/`: the search box, the sort links, a page of books with their availability, and the pager. */
export function homeBody(view: HomeView): SafeHtml {
  const list =
    view.books.length > 0
      ? html`<ul class="cards">${view.books.map(bookItem)}</ul>`
      : html`<p class="empty">${view.q === undefined ? 'No books on this page.' : 'No book matches your search.'}</p>`;
  return html`<h1>Books</h1>
<form method="get" action="${PATHS.home}" role="search" class="search"><label for="q">Search</label>
<input id="q" name="q" type="search" maxlength="200" value="${view.q ?? ''}" placeholder="Title, author or words from the synopsis">
${view.sort.map((key) => html`<input type="hidden" name="sort" value="${key}">`)}<button type="submit">Search</button></form>
<div class="list-header"><p class="summary" role="status">${summary(view)}</p>${sortLinks(view)}</div>
${list}${pager(PATHS.home, query(view, view.sort), view.metadata)}`;
}
