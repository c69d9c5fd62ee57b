import { Controller } from '@platform/endpoints';

/** `GET /search?q=books&page=2&size=10`: query keywords, two of them cast to numbers. */
export class Default extends Controller {
  static override types = { GET: { page: Number, size: Number } };

  GET({ q, page = 1, size = 20 }: { q: string; page?: number; size?: number }) {
    return { q, page, size };
  }
}
