import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateControllers } from '../bench/generate.js';
import { createApp, EndpointsError, type OpenApiDocument } from '../src/index.js';
import { appWith, call } from './support/controllers.js';
import { assertGolden, redoclyLint } from './support/documents.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
mkdirSync(join(packageRoot, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(packageRoot, '.tmp', 'openapi-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

type Operation = Record<string, unknown> & { responses: Record<string, Record<string, unknown>> };

function operation(document: OpenApiDocument, path: string, method: string): Operation {
  const found = document.paths[path]?.[method];
  assert.ok(found, `${method} ${path} is documented`);
  return found as Operation;
}

function writeDocument(document: OpenApiDocument, name: string): string {
  const file = join(scratch, name);
  writeFileSync(file, JSON.stringify(document, null, 2));
  return file;
}

const exampleDocument = async () =>
  (await createApp({ controllerPrefix: 'examples/controllers', cwd: packageRoot, log: () => {} })).openapi({
    title: 'endpoints example app',
    version: '1.0.0',
  });

const paramsDocument = async () =>
  (await createApp({ controllerPrefix: 'test/fixtures/params', cwd: packageRoot, log: () => {} })).openapi({
    title: 'Parameter kinds',
    version: '1.0.0',
  });

describe('OpenAPI documents', () => {
  test('the example app: golden document, valid for redocly', async () => {
    const document = await exampleDocument();
    assertGolden(document, 'example-app.openapi.json');
    const report = await redoclyLint(writeDocument(document, 'example.json'));
    assert.match(report, /valid/);
  });

  test('every parameter kind: golden document, valid for redocly', async () => {
    const document = await paramsDocument();
    assertGolden(document, 'params.openapi.json');
    await redoclyLint(writeDocument(document, 'params.json'));
  });

  test('a generated tree of 200 modules is valid for redocly', async () => {
    const dir = join(scratch, 'tree-200');
    generateControllers(dir, 200, 'ts', join(packageRoot, 'src', 'index.js'));
    const app = await createApp({ controllerPrefix: dir, log: () => {} });
    const document = app.openapi({ title: 'generated', version: '1.0.0' });
    assert.equal(Object.keys(document.paths).length, 400);
    await redoclyLint(writeDocument(document, 'tree-200.json'));
  });

  test('paths: required positionals are path parameters, optional ones add the shorter path', async () => {
    const { paths } = await paramsDocument();
    const get = (path: string) => paths[path]?.get as Record<string, unknown> | undefined;
    assert.equal(get('/kinds'), undefined, 'id is required, so GET /kinds is not a path');
    assert.ok(get('/kinds/{id}'));
    assert.ok(get('/kinds/{id}/{section}'));
    const parameters = get('/kinds/{id}/{section}')?.parameters as Record<string, unknown>[];
    assert.deepEqual(parameters.slice(0, 2), [
      { name: 'id', in: 'path', required: true, schema: { type: 'number' } },
      { name: 'section', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    // GET(orderId) and DELETE(id) on one class share one path, named by the first method.
    assert.deepEqual(Object.keys(paths['/shop/orders/{id}'] ?? {}), ['get', 'delete']);
    const patch = paths['/kinds/{id}']?.patch as Record<string, string>;
    assert.match(patch.description as string, /Further path segments/);
  });

  test('keywords: query parameters for GET, a JSON or form body for POST, with types and defaults', async () => {
    const document = await paramsDocument();
    const get = document.paths['/kinds/{id}']?.get as { parameters: Record<string, unknown>[] };
    const query = Object.fromEntries(
      get.parameters.filter((param) => param.in === 'query').map((param) => [param.name, param]),
    );
    assert.deepEqual(query.page, {
      name: 'page',
      in: 'query',
      required: false,
      schema: { type: 'number', default: 1 },
    });
    assert.deepEqual((query.tags as { schema: unknown }).schema, {
      type: 'array',
      items: { type: 'string' },
      default: [],
    });
    assert.deepEqual((query.level as { schema: unknown }).schema, {
      type: 'string',
      enum: ['low', 'high'],
      default: 'low',
    });
    assert.deepEqual((query.ratio as { schema: unknown }).schema, {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0.5,
    });
    assert.deepEqual(
      (query.when as { schema: unknown }).schema,
      { type: 'string' },
      'a custom cast documents the raw string',
    );
    assert.equal((query.required as { required: boolean }).required, true);
    assert.deepEqual((query.keywords as { schema: unknown }).schema, {
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    const post = document.paths['/kinds']?.post as { requestBody: { content: Record<string, unknown> } };
    assert.deepEqual(Object.keys(post.requestBody.content), [
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    const schemas = (document.components as { schemas: Record<string, unknown> }).schemas;
    assert.deepEqual(schemas.PostKindsBody, {
      type: 'object',
      properties: {
        name: { type: 'string' },
        count: { type: 'number', default: 1 },
        ratio: { type: 'number', minimum: 0, maximum: 1 },
        options: { default: { deep: true } },
      },
      required: ['name', 'ratio'],
      additionalProperties: false,
    });
    assert.equal((schemas.PutKindsByIdBody as { additionalProperties: boolean }).additionalProperties, true);
  });

  test('responses follow the status table and the handler code', async () => {
    const document = await paramsDocument();
    const statuses = (path: string, method: string) =>
      Object.keys(operation(document, path, method).responses);
    assert.deepEqual(statuses('/', 'get'), ['200', '400']);
    assert.deepEqual(statuses('/kinds', 'post'), ['201', '400', '413']);
    assert.deepEqual(statuses('/kinds/{id}', 'delete'), ['204', '400', '404', '423']);
    assert.deepEqual(statuses('/misc/moves/{to}', 'get'), ['307', '400', '404']);
    assert.deepEqual(statuses('/misc/moves', 'post'), ['200', '204', '400', '409', '413']);
    assert.deepEqual(statuses('/misc/secret', 'get'), ['200', '400', '401']);
    assert.deepEqual(statuses('/misc/shared', 'get'), ['200', '400', '403']);
    assert.deepEqual(operation(document, '/', 'get').responses['400']?.content, {
      'application/json': { schema: { $ref: '#/components/schemas/Error' } },
    });
    const csv = operation(document, '/misc/report.csv', 'get').responses['200']?.content as object;
    assert.deepEqual(Object.keys(csv), ['text/csv']);
    assert.deepEqual(operation(document, '/misc/secret', 'get').security, [{ basicAuth: [] }]);
    assert.deepEqual(operation(document, '/misc/secret', 'post').security, [{ bearerAuth: [] }]);
    assert.deepEqual(statuses('/misc/guarded', 'get'), ['200', '400', '401']);
    assert.deepEqual(operation(document, '/misc/guarded', 'get').security, [{ bearerAuth: [] }]);
  });

  test('summaries and descriptions come from doc comments; ANY and custom verbs', async () => {
    const document = await paramsDocument();
    const get = document.paths['/kinds/{id}']?.get as Record<string, string>;
    assert.equal(get.summary, 'Reads positionals and keywords from the query.');
    assert.match(get.description as string, /The optional positional gives a second path/);
    const tags = document.tags as { name: string; description: string }[];
    assert.match(tags.find((tag) => tag.name === '/kinds')?.description ?? '', /Every kind of parameter/);
    const anything = document.paths['/misc/anything'] as Record<string, { summary: string }>;
    assert.deepEqual(Object.keys(anything), ['get', 'put', 'post', 'delete', 'patch']);
    assert.equal(anything.get?.summary, 'GET is its own handler.');
    assert.equal(anything.put?.summary, 'Any method but the ones the class defines.');
    const kinds = document.paths['/kinds'] as Record<string, unknown>;
    assert.ok(kinds.head && kinds.options, 'HEAD and OPTIONS handlers are documented');
    assert.ok(!JSON.stringify(document).includes('propfind'), 'OpenAPI 3.1 has no PROPFIND');
  });

  test('private classes and modules never appear', async () => {
    const text = JSON.stringify(await paramsDocument());
    for (const hidden of ['hidden', 'Hidden', 'unlisted', 'private'])
      assert.ok(!text.includes(hidden), hidden);
  });

  test('createApp({ openapi: { path } }) serves the document; other methods get 501', async () => {
    const app = await appWith(
      { 'index.ts': `export class Default extends Controller { GET(id = undefined) { return id; } }` },
      { openapi: { path: '/docs/openapi.json', title: 'served', version: '2.0.0' } },
    );
    const served = await call(app, '/docs/openapi.json');
    assert.equal(served.status, 200);
    assert.match(served.headers.get('content-type') ?? '', /^application\/json/);
    const document = served.json as OpenApiDocument;
    assert.equal((document.info as { title: string }).title, 'served');
    assert.deepEqual(Object.keys(document.paths), ['/', '/{id}']);
    assert.equal((await call(app, '/docs/openapi.json', { method: 'POST' })).status, 501);
    assert.deepEqual(Object.keys(app.openapi().paths), ['/', '/{id}'], 'the document never lists itself');
  });

  test('APP_OPENAPI serves it too; a bad path or a path a controller answers fails startup', async () => {
    const app = await appWith(
      { 'index.ts': `export class Foo extends Controller { GET() { return 1; } }` },
      {
        env: { APP_OPENAPI: '/openapi.json' },
      },
    );
    assert.equal((await call(app, '/openapi.json')).status, 200);
    await assert.rejects(
      appWith(
        { 'index.ts': `export class Foo extends Controller { GET() {} }` },
        { openapi: { path: 'openapi.json' } },
      ),
      (error) =>
        error instanceof EndpointsError &&
        error.code === 'INVALID_OPTION' &&
        /must start with/.test(error.message),
    );
    await assert.rejects(
      appWith(
        { 'index.ts': `export class Foo extends Controller { GET() {} }` },
        { openapi: { path: '/foo' } },
      ),
      (error) => error instanceof EndpointsError && error.code === 'DUPLICATE_ROUTE',
    );
  });
});
