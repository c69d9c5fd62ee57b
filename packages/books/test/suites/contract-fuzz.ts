import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ContractDocument, loadContract } from '../../src/contract/document.js';
import { ApiClient } from '../support/client.js';
import { createBook, reserve } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
}

interface Operation {
  method: string;
  template: string;
  parameters: Parameter[];
  hasBody: boolean;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function resolveParameter(contract: ContractDocument, parameter: Parameter | { $ref: string }): Parameter {
  if (!('$ref' in parameter)) return parameter;
  const name = parameter.$ref.split('/').pop() ?? '';
  return (contract.components as { parameters: Record<string, Parameter> }).parameters[name] as Parameter;
}

/** Every operation of the served contract, with its parameters resolved. */
function operationsOf(contract: ContractDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(contract.paths)) {
    const shared = ((item.parameters ?? []) as Parameter[]).map((p) => resolveParameter(contract, p));
    for (const method of HTTP_METHODS) {
      const operation = item[method] as { parameters?: Parameter[]; requestBody?: unknown } | undefined;
      if (operation === undefined) continue;
      const own = (operation.parameters ?? []).map((p) => resolveParameter(contract, p));
      operations.push({
        method: method.toUpperCase(),
        template,
        parameters: [...shared, ...own],
        hasBody: operation.requestBody !== undefined,
      });
    }
  }
  return operations;
}

/** Hostile path segments (already URL-encoded where needed). */
const HOSTILE_PATH_VALUES = [
  'not-a-uuid',
  '%00',
  '%ED%A0%80', // an encoded lone surrogate: not valid UTF-8
  '%E2%80%8B', // zero-width space
  '0B9E4A86-8A59-4A5E-9A3E-1A8F0C1F2D3E',
  '00000000-0000-0000-0000-000000000000',
  'a'.repeat(150),
  '-1',
  '1e400',
  '%25',
  '%',
];

/** Hostile query values (URL-encoded). */
const HOSTILE_QUERY_VALUES = [
  'Infinity',
  '-Infinity',
  '1e400',
  '-1',
  'NaN',
  '0x10',
  '99999999999999999999999',
  '',
  '%00',
  '%ED%A0%80',
  '%E2%80%8B',
  'title,sideways',
  encodeURIComponent('title,asc,desc'),
  'x'.repeat(4000),
  'ACTIVE%00',
  '0B9E4A86-8A59-4A5E-9A3E-1A8F0C1F2D3E',
];

/** Hostile values of header parameters (If-Match, If-None-Match): malformed entity-tag lists and worse. */
const HOSTILE_HEADER_VALUES = [
  '',
  '*',
  '**',
  '*, "x"',
  ',',
  ', ,',
  'W/',
  'W/"',
  '"unterminated',
  '"a" "b"',
  '"a",W/"b",,"c"',
  'w/"lower-case weak"',
  `"${'x'.repeat(8000)}"`,
  '\u00ff\u00fe',
  '%00',
  '0B9E4A86-8A59-4A5E-9A3E-1A8F0C1F2D3E',
  '-1',
  'Infinity',
];

const deepArray = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
const deepObject = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;

/** Hostile JSON bodies, as raw text so they can hold what JSON.stringify would not produce. */
const HOSTILE_BODIES = [
  '42',
  'null',
  '"Dune"',
  '[]',
  '{}',
  '{"title":1e400,"author":"A","synopsis":"S"}',
  '{"title":-1,"author":true,"synopsis":[]}',
  '{"title":"a\\u0000b","author":"A","synopsis":"S"}',
  '{"title":"\\ud800","author":"A","synopsis":"S"}',
  '{"title":"\\udfff\\ud800","author":"\\ud83d","synopsis":"S"}',
  '{"title":"\\u200b\\u200b","author":"\\u2060","synopsis":"\\ufeff"}',
  `{"title":"${'x'.repeat(100_000)}","author":"A","synopsis":"S"}`,
  '{"title":"Dune","author":"A","synopsis":"S","__proto__":{"admin":true}}',
  '{"title":"Dune","author":"A","synopsis":"S","constructor":{"prototype":{"x":1}}}',
  deepArray,
  deepObject,
  `{"title":"Dune","author":"A","synopsis":"${'y'.repeat(2 * 1024 * 1024)}"}`,
  '{"title": "Dune",',
  '\u0000',
];

const BODY_HEADERS: Record<string, string>[] = [
  { 'content-type': 'application/json' },
  { 'content-type': 'text/plain' },
  { 'content-type': 'application/x-www-form-urlencoded' },
  { 'content-type': 'application/json', 'content-encoding': 'gzip' },
  { 'content-type': 'application/json; charset=utf-16' },
];

/**
 * Walks every operation of the served contract with hostile parameters and bodies. Any 5xx fails, and
 * ApiClient checks every response of an operation against the contract (status, media type, body).
 */
export function contractFuzzSuite(driver: Driver, skip: false | string = false) {
  describe(`contract-walking fuzz with hostile values (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;
    let valid: Record<string, string>;
    const contract = loadContract();
    const operations = operationsOf(contract);

    before(async () => {
      service = await startTestService(driver);
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      const book = await createBook(api, admin);
      const reservation = await reserve(api, admin, book.id);
      valid = { id: book.id, bookId: book.id, reservationId: reservation.id };
    });
    after(() => service?.close());

    const pathWith = (operation: Operation, overrides: Record<string, string> = {}) =>
      operation.template.replace(/\{([^}]+)\}/g, (_m, name: string) => overrides[name] ?? valid[name] ?? '');

    const expectNo5xx = async (
      method: string,
      path: string,
      options: Parameters<ApiClient['request']>[2],
    ) => {
      const response = await api.request(method, path, { session: admin, ...options });
      assert.ok(
        response.status < 500,
        `${method} ${path.slice(0, 200)} answered ${response.status}: ${JSON.stringify(response.body)?.slice(0, 300)}`,
      );
      assert.equal(
        response.headers.get('x-content-type-options'),
        'nosniff',
        `${method} ${path.slice(0, 200)}`,
      );
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      return response;
    };

    test('the contract has operations to walk', () => {
      assert.ok(operations.length >= 10);
    });

    test('hostile path parameters', async () => {
      for (const operation of operations) {
        for (const parameter of operation.parameters.filter((p) => p.in === 'path')) {
          for (const value of HOSTILE_PATH_VALUES) {
            await expectNo5xx(operation.method, pathWith(operation, { [parameter.name]: value }), {});
          }
        }
      }
    });

    test('hostile query parameters, alone and repeated', async () => {
      for (const operation of operations) {
        for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
          for (const value of HOSTILE_QUERY_VALUES) {
            const path = pathWith(operation);
            await expectNo5xx(operation.method, `${path}?${parameter.name}=${value}`, {});
            await expectNo5xx(
              operation.method,
              `${path}?${parameter.name}=${value}&${parameter.name}=${value}&${parameter.name}=1`,
              {},
            );
          }
        }
      }
    });

    test('hostile header parameters', async () => {
      // Its own book and reservation: `If-Match: *` lets writes through, which must not change the
      // resources the other tests walk.
      const book = await createBook(api, admin);
      const reservation = await reserve(api, admin, book.id);
      const own = { id: book.id, bookId: book.id, reservationId: reservation.id };
      for (const operation of operations) {
        for (const parameter of operation.parameters.filter((p) => p.in === 'header')) {
          for (const value of HOSTILE_HEADER_VALUES) {
            // A valid body where one is needed, so the header (not the body) decides the answer.
            const body = operation.hasBody ? { title: 'Dune', author: 'A', synopsis: 'S' } : undefined;
            await expectNo5xx(operation.method, pathWith(operation, own), {
              headers: { [parameter.name]: value },
              ...(body === undefined ? {} : { body }),
            });
          }
        }
      }
    });

    test('hostile bodies and content types on every operation that is not a GET', async () => {
      for (const operation of operations.filter((o) => o.method !== 'GET')) {
        for (const body of HOSTILE_BODIES) {
          for (const headers of BODY_HEADERS) {
            await expectNo5xx(operation.method, pathWith(operation), { rawBody: body, headers });
          }
        }
      }
    });

    test('hostile headers on every operation', async () => {
      const headerSets: Record<string, string>[] = [
        { accept: 'text/csv' },
        { accept: ';;;,,,q=abc' },
        { accept: `application/json;q=${'9'.repeat(400)}` },
        { 'x-xsrf-token': '%00' },
        { 'x-xsrf-token': 'A'.repeat(5000) },
        { 'x-requested-with': 'XMLHttpRequest', accept: 'text/html' },
      ];
      for (const operation of operations) {
        for (const headers of headerSets) {
          await expectNo5xx(operation.method, pathWith(operation), { headers });
        }
      }
    });

    test('the service still answers normally afterwards', async () => {
      const response = await api.get('/books', { session: admin });
      assert.equal(response.status, 200);
    });
  });
}
