import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { contractPath } from '../src/paths.js';
import { startTestService, type TestService } from './support/service.js';

/** The source the served documents must equal: the YAML, not the JSON copy the service reads. */
const contractYaml = readFileSync(contractPath, 'utf8');

let service: TestService;
before(async () => {
  service = await startTestService('pglite');
});
after(() => service?.close());

test('GET /v3/api-docs serves the contract as JSON, without a session', async () => {
  const response = await fetch(`${service.url}/v3/api-docs`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(await response.json(), parse(contractYaml));
});

test('GET /v3/api-docs.yaml serves the same contract as YAML', async () => {
  const response = await fetch(`${service.url}/v3/api-docs.yaml`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /yaml/);
  assert.deepEqual(parse(await response.text()), parse(contractYaml));
});

test('/swagger-ui.html leads to Swagger UI, whose assets come from the service itself', async () => {
  const redirect = await fetch(`${service.url}/swagger-ui.html`, { redirect: 'manual' });
  assert.equal(redirect.status, 302);
  await redirect.arrayBuffer();
  const page = await fetch(new URL(redirect.headers.get('location') ?? '', service.url));
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /<title>Book collection service: API<\/title>/);
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
  assert.ok(assets.length > 0);
  for (const asset of assets) {
    assert.doesNotMatch(asset, /^https?:/, `asset ${asset} must be served offline`);
    const response = await fetch(new URL(asset, page.url));
    assert.equal(response.status, 200, asset);
    await response.arrayBuffer();
  }
  const initializer = await (await fetch(`${service.url}/swagger-ui/static/swagger-initializer.js`)).text();
  assert.match(initializer, /v3\/api-docs/);
  assert.match(initializer, /X-XSRF-TOKEN/, 'Swagger UI echoes the CSRF cookie on unsafe calls');
});
