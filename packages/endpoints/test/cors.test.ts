import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { appWith, call } from './support/controllers.js';

describe('CORS as a class option (reference §1.10, project decision 8)', async () => {
  const app = await appWith({
    'index.ts': `
      export class Open extends Controller { static cors = true; GET() { return 'open'; } }
      export class Closed extends Controller { static cors = { origins: ['https://ok.example'], maxAge: 60 }; GET() { return 'closed'; } }
      export class Plain extends Controller { GET() { return 'plain'; } }`,
  });
  const preflight = {
    origin: 'https://app.example',
    'access-control-request-method': 'PUT',
    'access-control-request-headers': 'x-token, content-type',
  };

  test('a request with an Origin gets Allow-Origin and Vary', async () => {
    const reply = await call(app, '/open', { headers: { origin: 'https://app.example' } });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.equal(reply.headers.get('vary'), 'Origin');
    assert.equal(reply.headers.get('access-control-allow-credentials'), 'true');
  });

  test('a request without an Origin gets no CORS headers', async () => {
    const reply = await call(app, '/open');
    assert.equal(reply.headers.get('access-control-allow-origin'), null);
  });

  test('the preflight echoes the requested method and headers → 204', async () => {
    for (const target of ['/open', '/open/extra/segments']) {
      const reply = await call(app, target, { method: 'OPTIONS', headers: preflight });
      assert.equal(reply.status, 204, target);
      assert.equal(reply.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.equal(reply.headers.get('access-control-allow-methods'), 'PUT');
      assert.equal(reply.headers.get('access-control-allow-headers'), 'x-token, content-type');
      assert.equal(reply.headers.get('access-control-allow-credentials'), 'true');
      assert.equal(reply.headers.get('access-control-max-age'), '3600');
    }
  });

  const missing: [string, string][] = [
    ['origin', 'Need Origin header'],
    ['access-control-request-headers', 'Need Access-Control-Request-Headers header'],
    ['access-control-request-method', 'Need Access-Control-Request-Method header'],
  ];
  for (const [header, message] of missing) {
    test(`a preflight without ${header} → 400`, async () => {
      const headers: Record<string, string> = { ...preflight };
      delete headers[header];
      const reply = await call(app, '/open', { method: 'OPTIONS', headers });
      assert.equal(reply.status, 400);
      assert.equal(reply.json, message);
    });
  }

  test('an origin outside the allowed list → 403, for requests and preflights', async () => {
    assert.equal((await call(app, '/closed', { headers: { origin: 'https://evil.example' } })).status, 403);
    assert.equal((await call(app, '/closed', { method: 'OPTIONS', headers: preflight })).status, 403);
    const allowed = await call(app, '/closed', {
      method: 'OPTIONS',
      headers: { ...preflight, origin: 'https://ok.example' },
    });
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get('access-control-max-age'), '60');
  });

  test('OPTIONS is in the Allow header of a CORS class, and 501 on a class without CORS', async () => {
    assert.equal((await call(app, '/open', { method: 'DELETE' })).headers.get('allow'), 'GET, OPTIONS');
    assert.equal((await call(app, '/plain', { method: 'OPTIONS', headers: preflight })).status, 501);
  });
});
