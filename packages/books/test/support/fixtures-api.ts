import assert from 'node:assert/strict';
import type { ApiClient } from './client.js';
import type { TestSession } from './test-sessions.js';

export const SAMPLE_BOOK = {
  title: 'Dune',
  author: 'Frank Herbert',
  synopsis: 'A desert planet and its spice.',
};

/** Creates a book through the API as `admin` and returns its representation. */
export async function createBook(
  api: ApiClient,
  admin: TestSession,
  fields: Partial<typeof SAMPLE_BOOK & { copies: number }> = {},
) {
  const response = await api.post('/books', { session: admin, body: { ...SAMPLE_BOOK, ...fields } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}

/** Reserves a book through the API as `user` and returns the reservation. */
export async function reserve(api: ApiClient, user: TestSession, bookId: string) {
  const response = await api.post(`/books/${bookId}/reservations`, { session: user });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body;
}
