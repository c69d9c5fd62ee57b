import type { FastifyRequest } from 'fastify';
import { signedInUser } from '../auth/signed-in-user.js';
import type { Schemas } from '../contract/schemas.js';
import {
  conditionalGet,
  entityTag,
  sendTagged,
  versionForConditionalWrite,
} from '../http/conditional-requests.js';
import { baseUrlOf } from '../http/links.js';
import { HAL_CONTENT_TYPE, type OperationHandlers } from '../http/operations.js';
import { pageLinks, pageMetadata, pageRequest } from '../http/pagination.js';
import type { Book, BookFields } from '../modules/books/book.js';
import type { BooksService } from '../modules/books/books.service.js';
import type { User } from '../modules/users/user.js';
import { bookResource } from './books.resource.js';

/** The body after validation: the contract's default has filled in `copies`. */
function withCopies(body: Schemas['BookInput']): BookFields {
  if (body.copies === undefined) throw new Error("the contract's default for copies was not applied");
  return { ...body, copies: body.copies };
}

/** The ETag of the book as `bookResource` shows it to this caller at this base URL. */
const bookTag = (base: string, book: Book) => entityTag(book.version, bookResource(base, book));

type BookOperations = 'listBooks' | 'createBook' | 'getBook' | 'updateBook' | 'deleteBook';

export function booksHandlers(
  books: BooksService,
  publicBaseUrl: string | undefined,
): Pick<OperationHandlers, BookOperations> {
  /** The version an update or delete of book `id` must still find (see versionForConditionalWrite). */
  const bookVersionForWrite = (request: FastifyRequest, caller: User, id: string, base: string) =>
    versionForConditionalWrite(
      request,
      () => books.get(caller, id),
      (current) => bookTag(base, current),
    );
  return {
    async listBooks(request, reply) {
      const base = baseUrlOf(request, publicBaseUrl);
      const page = pageRequest(request.query);
      const { items, total } = await books.list(signedInUser(request), page, request.query.q);
      const metadata = pageMetadata(page, total);
      reply.type(HAL_CONTENT_TYPE);
      return {
        _embedded: { books: items.map((book) => bookResource(base, book)) },
        _links: pageLinks(base, '/books', page, metadata, { q: request.query.q }),
        page: metadata,
      };
    },
    async createBook(request, reply) {
      const base = baseUrlOf(request, publicBaseUrl);
      const book = await books.create(signedInUser(request), withCopies(request.body));
      const resource = bookResource(base, book);
      reply.code(201).header('location', resource._links.self.href);
      return sendTagged(reply, book.version, resource);
    },
    async getBook(request, reply) {
      const book = await books.get(signedInUser(request), request.params.id);
      return conditionalGet(
        request,
        reply,
        book.version,
        bookResource(baseUrlOf(request, publicBaseUrl), book),
      );
    },
    async updateBook(request, reply) {
      const caller = signedInUser(request);
      const { id } = request.params;
      const base = baseUrlOf(request, publicBaseUrl);
      const expectedVersion = await bookVersionForWrite(request, caller, id, base);
      const book = await books.update(caller, id, withCopies(request.body), expectedVersion);
      return sendTagged(reply, book.version, bookResource(base, book));
    },
    async deleteBook(request, reply) {
      const caller = signedInUser(request);
      const { id } = request.params;
      const base = baseUrlOf(request, publicBaseUrl);
      const expectedVersion = await bookVersionForWrite(request, caller, id, base);
      await books.delete(caller, id, expectedVersion);
      reply.code(204);
      return undefined;
    },
  };
}
