import type { FastifyReply, FastifyRequest } from 'fastify';
import { signedInUser } from '../../auth/signed-in-user.js';
import { AppError } from '../../errors.js';
import type { BookFields } from '../../modules/books/book.js';
import { fieldMessages } from '../../pages/field-messages.js';
import { type FormBody, formOf, redirectWithFlash } from '../../pages/forms.js';
import { PATHS } from '../../pages/paths.js';
import type { AjvIssue } from '../../plugins/app/problem.js';
import { bodyValidator, parametersOf } from '../contract-rules.js';
import { type BookFormView, bookFormBody } from '../views/book-form.js';
import type { WebContext } from './context.js';

/** The contract's BookInput, checked by the same compiler as an API body. */
const validateBookInput = bodyValidator('BookInput');

type FormValues = BookFormView['values'];

const valuesOf = (form: FormBody): FormValues => ({
  title: form.title ?? '',
  author: form.author ?? '',
  synopsis: form.synopsis ?? '',
  copies: form.copies ?? '',
});

/** The version the edit form was shown with (absent or malformed: the save is unconditional, as a PUT without If-Match). */
function versionOf(form: FormBody): number | undefined {
  const version = form.version ?? '';
  return /^\d{1,15}$/.test(version) ? Number(version) : undefined;
}

/**
 * The form's text as the API body it stands for: `copies` is a number when it is written as one (left
 * empty, the contract's default applies); anything else stays text, so the schema reports it.
 */
function bookInput(values: FormValues): Record<string, unknown> {
  const copies = values.copies.trim();
  const input: Record<string, unknown> = {
    title: values.title,
    author: values.author,
    synopsis: values.synopsis,
  };
  if (copies !== '') input.copies = /^-?\d{1,9}$/.test(copies) ? Number(copies) : copies;
  return input;
}

/** Create, edit and delete books (ROLE_ADMIN, as the API's createBook, updateBook and deleteBook). */
export function adminBookRoutes({ page, books, render }: WebContext): void {
  const form = (
    request: FastifyRequest,
    reply: FastifyReply,
    view: Omit<BookFormView, 'viewer'>,
    status = 200,
  ) =>
    render(request, reply, {
      title: view.bookId === undefined ? 'Add a book' : 'Edit book',
      ...(view.bookId === undefined ? { current: PATHS.newBook } : {}),
      status,
      body: bookFormBody({ ...view, viewer: render.viewer(request) }),
    });

  /** The fields, or the form again with what was wrong (400), as the API would have refused them. */
  function checked(
    request: FastifyRequest,
    reply: FastifyReply,
    bookId: string | undefined,
    version?: number,
  ): { fields: BookFields } | { refused: FastifyReply } {
    const values = valuesOf(formOf(request));
    const input = bookInput(values);
    if (validateBookInput(input)) return { fields: input as BookFields };
    const errors = fieldMessages('body', (validateBookInput.errors ?? []) as AjvIssue[]);
    const problem = `The book was not saved: ${errors.length === 1 ? '1 field needs' : `${errors.length} fields need`} fixing.`;
    return { refused: form(request, reply, { bookId, version, values, problem, errors }, 400) };
  }

  page({
    method: 'GET',
    url: PATHS.newBook,
    access: 'createBook',
    async handler(request, reply) {
      return form(request, reply, { values: { title: '', author: '', synopsis: '', copies: '1' } });
    },
  });

  page({
    method: 'POST',
    url: PATHS.createBook,
    access: 'createBook',
    async handler(request, reply) {
      const input = checked(request, reply, undefined);
      if ('refused' in input) return input.refused;
      const book = await books.create(signedInUser(request), input.fields);
      return redirectWithFlash(
        request,
        reply,
        { kind: 'success', text: 'The book was created.' },
        PATHS.book(book.id),
      );
    },
  });

  page<unknown, { id: string }>({
    method: 'GET',
    url: '/web/admin/books/:id/edit',
    access: 'updateBook',
    params: parametersOf('updateBook', 'path'),
    async handler(request, reply, flash) {
      const book = await books.get(signedInUser(request), request.params.id);
      const values = { ...book, copies: String(book.copies) };
      const body = bookFormBody({
        viewer: render.viewer(request),
        bookId: book.id,
        version: book.version,
        values,
      });
      return render(request, reply, { title: 'Edit book', flash, body });
    },
  });

  page<unknown, { id: string }>({
    method: 'POST',
    url: '/web/admin/books/:id',
    access: 'updateBook',
    params: parametersOf('updateBook', 'path'),
    async handler(request, reply) {
      const { id } = request.params;
      const user = signedInUser(request);
      const version = versionOf(formOf(request));
      const input = checked(request, reply, id, version);
      if ('refused' in input) return input.refused;
      const values = valuesOf(formOf(request));
      try {
        // As a PUT with If-Match: another admin's save (or a reservation) since the form was shown refuses it.
        await books.update(user, id, input.fields, version);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.kind === 'precondition_failed') {
          const current = await books.get(user, id);
          const problem =
            'This book changed while you were editing it (another admin saved it, or its reservations changed). Your values are kept below; save again to apply them to the current version.';
          return form(request, reply, { bookId: id, version: current.version, values, problem }, 412);
        }
        // Fewer copies than are held or lent: the form again, with what was typed and why.
        if (error.kind !== 'conflict') throw error;
        return form(request, reply, { bookId: id, version, values, problem: error.message }, 409);
      }
      return redirectWithFlash(
        request,
        reply,
        { kind: 'success', text: 'The book was saved.' },
        PATHS.book(id),
      );
    },
  });

  page<unknown, { id: string }>({
    method: 'POST',
    url: '/web/admin/books/:id/delete',
    access: 'deleteBook',
    params: parametersOf('deleteBook', 'path'),
    async handler(request, reply) {
      const caller = signedInUser(request);
      const book = await books.get(caller, request.params.id);
      await books.delete(caller, book.id);
      return redirectWithFlash(
        request,
        reply,
        { kind: 'success', text: `Deleted “${book.title}”.` },
        PATHS.home,
      );
    },
  });
}
