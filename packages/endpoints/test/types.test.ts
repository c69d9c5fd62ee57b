import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createApp, EndpointsError, type OpenApiDocument } from '../src/index.js';
import { SchemaCompiler } from '../src/validation/validators.js';
import { assertGolden, redoclyLint } from './support/documents.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const tsx = join(packageRoot, '..', '..', 'node_modules', '.bin', 'tsx');
const bin = join(packageRoot, 'bin', 'endpoints.ts');
mkdirSync(join(packageRoot, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(packageRoot, '.tmp', 'types-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const fixture = 'test/fixtures/types';

/** `endpoints openapi --project` over the type-construct fixture: the document and the warnings. */
const fixtureRun = promisify(execFile)(
  tsx,
  [
    bin,
    'openapi',
    '--prefix',
    fixture,
    '--project',
    `${fixture}/tsconfig.json`,
    '--title',
    'Type constructs',
  ],
  { cwd: packageRoot, timeout: 240_000 },
).then(({ stdout, stderr }) => ({ document: JSON.parse(stdout) as OpenApiDocument, stderr }));

type Schema = Record<string, unknown>;
const at = (document: OpenApiDocument, path: string, method: string) =>
  document.paths[path]?.[method] as Schema & {
    parameters?: Schema[];
    responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  };
const bodyOf = (document: OpenApiDocument, path: string, method: string, status = '200') =>
  at(document, path, method).responses[status]?.content?.['application/json']?.schema;
const components = (document: OpenApiDocument) =>
  (document.components as { schemas: Record<string, Schema> }).schemas;

describe('types from TypeScript (--project)', () => {
  test('every type construct: golden document, valid for redocly', async () => {
    const { document } = await fixtureRun;
    assertGolden(document, 'types.openapi.json');
    const file = join(scratch, 'types.json');
    writeFileSync(file, JSON.stringify(document));
    assert.match(await redoclyLint(file), /valid/);
  });

  test('a type it cannot express is {} with a warning naming the file, the handler and the type', async () => {
    const { document, stderr } = await fixtureRun;
    const where = 'test/fixtures/types/shapes/index.ts';
    assert.deepEqual(stderr.trim().split('\n'), [
      `endpoints types: ${where} Odd.GET: return type at call, '(x: number) => number' cannot be expressed in JSON Schema (a function); documented as {}`,
      `endpoints types: ${where} Odd.POST: keyword value, 'T' cannot be expressed in JSON Schema (an unresolved type parameter); documented as {}`,
      `endpoints types: ${where} Odd.POST: return type, 'T extends string ? number : boolean' cannot be expressed in JSON Schema (a conditional type); documented as {}`,
      `endpoints types: ${where} Odd.PUT: return type, 'Map<{ id: number; }, number>' cannot be expressed in JSON Schema (a Map whose keys are not strings or numbers); documented as {}`,
    ]);
    assert.deepEqual(bodyOf(document, '/shapes/odd', 'get'), {
      type: 'object',
      properties: { call: {}, name: { type: 'string' } },
      required: ['call', 'name'],
    });
    assert.deepEqual(bodyOf(document, '/shapes/odd', 'put'), {});
  });

  test('parameters, doc comments and return types come from the signature; Promise is unwrapped', async () => {
    const { document } = await fixtureRun;
    const get = at(document, '/shapes/{id}', 'get');
    assert.deepEqual(get.parameters?.[0], {
      name: 'id',
      in: 'path',
      description: "the record's number",
      required: true,
      schema: { type: 'number' },
    });
    assert.deepEqual(
      get.parameters?.find((parameter) => parameter.name === 'status'),
      // Required: the framework asks for every keyword the handler gives no default.
      { name: 'status', in: 'query', required: true, schema: { $ref: '#/components/schemas/Status' } },
    );
    const created = bodyOf(document, '/shapes', 'post', '201') as Schema;
    assert.deepEqual((created.properties as Schema).created, { type: 'string', format: 'date-time' });
    assert.deepEqual(created.required, ['street', 'city', 'created']);
    const body = components(document).PostShapesBody as { properties: Record<string, Schema> };
    assert.deepEqual(body.properties.address, {
      $ref: '#/components/schemas/Address',
      description: 'Where to send it.',
    });
    assert.deepEqual(body.properties.point, {
      type: 'array',
      prefixItems: [{ type: 'number' }, { type: 'number' }],
      minItems: 2,
      items: false,
      maxItems: 2,
    });
    assert.deepEqual(body.properties.scores, { type: 'object', additionalProperties: { type: 'number' } });
    assert.deepEqual(at(document, '/shapes/mixed', 'delete').responses['204'], { description: 'No Content' });
  });

  test('as JSON has it: undefined properties, #private fields and class getters left out, an undefined item null, toJSON deciding, Maps and Sets as the framework renders them', async () => {
    const { document } = await fixtureRun;
    const schema = bodyOf(document, '/shapes/mixed', 'put') as Schema;
    assert.deepEqual(schema, {
      type: 'object',
      properties: {
        holes: { type: 'array', items: { type: ['string', 'null'] } },
        pair: {
          type: 'array',
          prefixItems: [{ type: 'number' }, { type: 'null' }],
          minItems: 2,
          items: false,
          maxItems: 2,
        },
        cart: { $ref: '#/components/schemas/Cart' },
      },
      required: ['holes', 'pair', 'cart'],
    });
    const cart = components(document).Cart as Schema;
    assert.deepEqual(cart, {
      type: 'object',
      properties: { items: { type: 'array', items: { type: 'string' } } },
      required: ['items'],
      description: 'A class whose JSON is its own fields: not its `#private` one, not its getter.',
    });
    const mixed = bodyOf(document, '/shapes/mixed', 'get') as { properties: Record<string, Schema> };
    assert.deepEqual(mixed.properties.price, { type: 'string' }, 'what toJSON returns');
    assert.deepEqual(mixed.properties.counts, { type: 'object', additionalProperties: { type: 'number' } });
    assert.deepEqual(mixed.properties.tags, { type: 'array', items: { type: 'string' } });
    // What the client receives of the handler's value passes the check strict validation makes.
    class Cart {
      #opened = 1;
      constructor(readonly items: string[]) {}
      get size() {
        return this.items.length + this.#opened;
      }
    }
    const received = JSON.parse(
      JSON.stringify({
        gone: undefined,
        holes: ['a', undefined],
        pair: [1, undefined],
        cart: new Cart(['a']),
      }),
    );
    assert.equal(new SchemaCompiler({ Cart: cart }).compile(schema)(received), null);
  });

  test('named types are components; recursive ones refer to themselves', async () => {
    const { document } = await fixtureRun;
    const schemas = components(document);
    assert.deepEqual(schemas.Role, {
      type: 'string',
      enum: ['admin', 'reader'],
      description: 'A role, as a string enum.',
    });
    assert.deepEqual(schemas.Priority?.enum, [0, 1]);
    assert.deepEqual((schemas.Category as { properties: Schema }).properties.children, {
      type: 'array',
      items: { $ref: '#/components/schemas/Category' },
    });
    assert.deepEqual((schemas.Tree as { properties: Schema }).properties.left, {
      $ref: '#/components/schemas/Tree',
    });
    assert.deepEqual(schemas.Shape?.anyOf, [
      { $ref: '#/components/schemas/Circle' },
      { $ref: '#/components/schemas/Square' },
    ]);
    assert.deepEqual(bodyOf(document, '/shapes/trees', 'put'), { $ref: '#/components/schemas/Page_Tree' });
    assert.equal(schemas.Error?.type, 'string', "the framework's error body keeps its name");
  });

  test('explicit static types and Standard Schema win over the signature', async () => {
    const { document } = await fixtureRun;
    const parameters = at(document, '/shapes/explicit', 'get').parameters ?? [];
    const schemaOf = (name: string) => parameters.find((parameter) => parameter.name === name)?.schema;
    assert.deepEqual(schemaOf('count'), { type: 'number', default: 1 });
    assert.deepEqual(schemaOf('level'), { type: 'string', enum: ['low', 'high'], default: 'low' });
  });

  test('the example app: app.openapi({ project }) golden document, valid for redocly', async () => {
    const warnings: string[] = [];
    const app = await createApp({
      controllerPrefix: 'examples/controllers',
      cwd: packageRoot,
      log: (line) => warnings.push(line),
    });
    const document = app.openapi({
      title: 'endpoints example app',
      version: '1.0.0',
      project: 'tsconfig.json',
    });
    assertGolden(document, 'example-app.typed.openapi.json');
    const file = join(scratch, 'example-typed.json');
    writeFileSync(file, JSON.stringify(document));
    assert.match(await redoclyLint(file), /valid/);
    assert.deepEqual(warnings, []);
    // One handler lists users or shows one: its return type is the union.
    assert.deepEqual(bodyOf(document, '/users/{id}', 'get'), {
      anyOf: [
        { $ref: '#/components/schemas/User' },
        { type: 'array', items: { $ref: '#/components/schemas/User' } },
      ],
    });
    // The compiler ran once: the second document reuses its reading.
    const again = app.openapi({ title: 'endpoints example app', version: '1.0.0', project: 'tsconfig.json' });
    assert.deepEqual(again, document);
  });

  test("types that need the tsconfig's `types` packages (Node's globals and modules) are read with them", async () => {
    // The program is first built without `types`; each of these leaves something unresolved there.
    const cases = {
      global:
        'export class Default extends Controller {\n  GET() {\n    return { data: Buffer.from("a") };\n  }\n}\n',
      import:
        'import { EOL } from "node:os";\nexport class Default extends Controller {\n  GET() {\n    return { eol: EOL };\n  }\n}\n',
    };
    const expected = {
      global: {
        type: 'object',
        properties: { data: { type: 'string', format: 'binary' } },
        required: ['data'],
      },
      import: { type: 'object', properties: { eol: { type: 'string' } }, required: ['eol'] },
    };
    for (const [name, source] of Object.entries(cases) as [keyof typeof cases, string][]) {
      const dir = join(scratch, `node-${name}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          extends: join(packageRoot, '..', '..', 'tsconfig.base.json'),
          compilerOptions: { noEmit: true, types: ['node'] },
          include: ['.'],
        }),
      );
      writeFileSync(
        join(dir, 'node.ts'),
        // As an application imports the framework: its built declarations, which need no Node types.
        `import { Controller } from '@platform/endpoints';\n${source}`,
      );
      const warnings: string[] = [];
      const app = await createApp({ controllerPrefix: dir, log: (line) => warnings.push(line) });
      const document = app.openapi({ project: join(dir, 'tsconfig.json') });
      assert.deepEqual(bodyOf(document, '/node', 'get'), expected[name], name);
      assert.deepEqual(warnings, [], name);
    }
  });

  test('a project that does not exist is a clear INVALID_OPTION error', async () => {
    const app = await createApp({
      controllerPrefix: 'examples/controllers',
      cwd: packageRoot,
      log: () => {},
    });
    assert.throws(
      () => app.openapi({ project: 'no-such-tsconfig.json' }),
      (error: unknown) =>
        error instanceof EndpointsError &&
        error.code === 'INVALID_OPTION' &&
        /no tsconfig at/.test(error.message),
    );
  });

  test('without a project, serving and the document never load TypeScript', async () => {
    const script = `
      import { createRequire } from 'node:module';
      import { createApp } from './src/index.ts';
      const app = await createApp({ controllerPrefix: 'examples/controllers', log: () => {} });
      await app.fetch(new Request('http://x/users/1'));
      app.openapi();
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/typescript/'));
      console.log(JSON.stringify(loaded));`;
    const { stdout } = await promisify(execFile)(tsx, ['--input-type=module', '-e', script], {
      cwd: packageRoot,
      timeout: 60_000,
    });
    assert.deepEqual(JSON.parse(stdout), []);
  });
});
