import { html, type SafeHtml } from '../../pages/html.js';
import { csrfField, type Viewer } from '../../pages/layout.js';
import { PATHS } from '../../pages/paths.js';
import type { FieldError } from '../../plugins/app/problem.js';
import { postButton } from './components.js';

export interface BookFormView {
  viewer: Viewer;
  /** Absent: a new book. */
  bookId?: string | undefined;
  /** The version of the book the form was filled in from: saving is refused if it changed meanwhile. */
  version?: number | undefined;
  /** What the form shows: the book's fields, or what was typed when it was refused. */
  values: Record<'title' | 'author' | 'synopsis' | 'copies', string>;
  /** Why the last attempt was refused (a conflict, or the invalid fields). */
  problem?: string | undefined;
  errors?: readonly FieldError[];
}

const LABELS = { title: 'Title', author: 'Author', synopsis: 'Synopsis', copies: 'Copies' } as const;
type Field = keyof typeof LABELS;

function fieldError(errors: readonly FieldError[], field: Field): string | undefined {
  const messages = errors.filter((error) => error.field === field).map((error) => error.message);
  return messages.length === 0 ? undefined : messages.join('; ');
}

function field(view: BookFormView, name: Field, control: (describedBy: string) => SafeHtml): SafeHtml {
  const error = fieldError(view.errors ?? [], name);
  const errorId = `${name}-error`;
  return html`<div class="field${error === undefined ? '' : ' invalid'}"><label for="${name}">${LABELS[name]}</label>${control(
    error === undefined ? '' : errorId,
  )}${error && html`<p class="field-error" id="${errorId}">${LABELS[name]} ${error}</p>`}</div>`;
}

const described = (id: string) => (id === '' ? '' : html` aria-describedby="${id}" aria-invalid="true"`);

/** Create or edit a book: the contract's BookInput as a form (the same limits, checked by the same schema). */
export function bookFormBody(view: BookFormView): SafeHtml {
  const editing = view.bookId !== undefined;
  const action = view.bookId === undefined ? PATHS.createBook : PATHS.updateBook(view.bookId);
  const back = view.bookId === undefined ? PATHS.newBook : PATHS.editBook(view.bookId);
  const { values } = view;
  return html`${editing && html`<p><a href="${PATHS.book(view.bookId ?? '')}">← Back to the book</a></p>`}
<h1>${editing ? 'Edit book' : 'Add a book'}</h1>${view.problem && html`<p class="flash flash-error" role="alert">${view.problem}</p>`}
<form method="post" action="${action}" class="book-form">${csrfField(view.viewer.csrf)}${
    view.version !== undefined && html`<input type="hidden" name="version" value="${view.version}">`
  }
${field(view, 'title', (id) => html`<input id="title" name="title" required maxlength="255" value="${values.title}"${described(id)}>`)}
${field(view, 'author', (id) => html`<input id="author" name="author" required maxlength="255" value="${values.author}"${described(id)}>`)}
${field(view, 'synopsis', (id) => html`<textarea id="synopsis" name="synopsis" required maxlength="5000" rows="6"${described(id)}>${values.synopsis}</textarea>`)}
${field(view, 'copies', (id) => html`<input id="copies" name="copies" type="number" required min="0" max="100000" step="1" inputmode="numeric" value="${values.copies}"${described(id)}>`)}
<button type="submit">${editing ? 'Save changes' : 'Create book'}</button></form>
${
  view.bookId !== undefined &&
  html`<section class="panel danger-zone" aria-labelledby="delete"><h2 id="delete">Delete this book</h2>
<p>Only a book without open reservations can be deleted; its closed reservations go with it.</p>${postButton(view.viewer, PATHS.deleteBook(view.bookId), 'Delete book', back, 'danger')}</section>`
}`;
}
