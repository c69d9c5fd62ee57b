import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { ApiClient } from '../support/client.js';
import { createBook } from '../support/fixtures-api.js';
import { type Driver, openTestDatabase, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

interface HealthBody {
  status: string;
  components: Record<string, { status: string; details: Record<string, unknown> }>;
}

const METRICS_TOKEN = 'scraper-token-0123456789abcdefghijklmnop';

/** Spring Boot Actuator's health groups and a Prometheus endpoint, over real HTTP. */
export function actuatorSuite(driver: Driver, skip: false | string = false) {
  describe(`actuator: health and Prometheus metrics (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;
    let user: TestSession;
    let databaseDown = false;

    before(async () => {
      const database = await openTestDatabase(driver);
      // Fault injection: the database stops answering on demand, to see readiness go DOWN.
      const flaky: Database = {
        ...database.db,
        query: async (sql, params) => {
          if (databaseDown && sql === 'select 1') throw new Error('connection refused');
          return database.db.query(sql, params);
        },
      };
      service = await startTestService(driver, {
        database: { db: flaky, dispose: database.dispose },
        env: { METRICS_TOKEN },
      });
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      user = await createTestSession(service);
    });
    after(() => service?.close());

    const getJson = async (path: string, headers: Record<string, string> = {}) => {
      const response = await fetch(`${service.url}${path}`, { headers });
      return { status: response.status, body: (await response.json()) as HealthBody };
    };

    test('health, liveness and readiness are public and UP, without details', async () => {
      for (const path of ['/actuator/health', '/actuator/health/liveness', '/actuator/health/readiness']) {
        const { status, body } = await getJson(path);
        assert.equal(status, 200, path);
        assert.deepEqual(body, { status: 'UP' }, path);
      }
      const signedIn = await getJson('/actuator/health', { cookie: user.cookie });
      assert.deepEqual(signedIn.body, { status: 'UP' }, 'a ROLE_USER sees no details either');
    });

    test('admins (and the metrics token) see the components', async () => {
      const { body } = await getJson('/actuator/health', { cookie: admin.cookie });
      assert.equal(body.status, 'UP');
      assert.equal(body.components.db?.status, 'UP');
      assert.equal(body.components.db?.details.database, driver);
      assert.equal(body.components.livenessState?.status, 'UP');
      assert.equal(body.components.readinessState?.status, 'UP');
      const scraper = await getJson('/actuator/health/readiness', {
        authorization: `Bearer ${METRICS_TOKEN}`,
      });
      assert.equal(scraper.body.components.db?.status, 'UP');
    });

    test('readiness is DOWN (503) while the database does not answer; liveness stays UP', async () => {
      databaseDown = true;
      try {
        const readiness = await getJson('/actuator/health/readiness');
        assert.equal(readiness.status, 503);
        assert.deepEqual(readiness.body, { status: 'DOWN' });
        const health = await getJson('/actuator/health', { cookie: admin.cookie });
        assert.equal(health.status, 503);
        assert.equal(health.body.components.db?.details.error, 'connection refused');
        const liveness = await getJson('/actuator/health/liveness');
        assert.equal(liveness.status, 200);
      } finally {
        databaseDown = false;
      }
      assert.equal((await getJson('/actuator/health/readiness')).status, 200);
    });

    test('/actuator/prometheus is for admins and the scraper token; others get 401/403 problems', async () => {
      const anonymous = await fetch(`${service.url}/actuator/prometheus`);
      assert.equal(anonymous.status, 401);
      assert.equal(((await anonymous.json()) as { code: string }).code, 'METRICS_ACCESS_DENIED');
      const forbidden = await fetch(`${service.url}/actuator/prometheus`, {
        headers: { cookie: user.cookie },
      });
      assert.equal(forbidden.status, 403);
      await forbidden.arrayBuffer();
      const wrongToken = await fetch(`${service.url}/actuator/prometheus`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}x` },
      });
      assert.equal(wrongToken.status, 401);
      await wrongToken.arrayBuffer();
      const scraper = await fetch(`${service.url}/actuator/prometheus`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(scraper.status, 200);
      assert.match(scraper.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      await scraper.arrayBuffer();
    });

    test('metrics: durations by route template and status, connections, active sessions, login outcomes', async () => {
      const book = await createBook(api, admin);
      await api.get(`/books/${book.id}`, { session: user });
      await api.get(`/books/${book.id.replace(/.$/, '0')}`, { session: user });
      // A callback without a login in progress: a failed sign-in attempt.
      const failed = await fetch(`${service.url}/login/oauth2/code/dev?code=x&state=y`);
      assert.equal(failed.status, 401);
      await failed.arrayBuffer();
      const text = await (
        await fetch(`${service.url}/actuator/prometheus`, { headers: { cookie: admin.cookie } })
      ).text();
      assert.match(
        text,
        /http_server_requests_seconds_count\{method="GET",uri="\/books\/:id",status="200",outcome="SUCCESS"\} [1-9]/,
      );
      assert.doesNotMatch(text, new RegExp(book.id), 'concrete ids never become labels');
      assert.match(
        text,
        /http_server_requests_seconds_count\{method="POST",uri="\/books",status="201",outcome="SUCCESS"\} 1/,
      );
      assert.match(text, /books_db_connections\{state="max"\} \d+/);
      assert.match(text, /books_db_connections\{state="open"\} \d+/);
      const active = Number(/books_sessions_active (\d+)/.exec(text)?.[1]);
      assert.ok(active >= 2, `active sessions: ${active}`);
      assert.match(text, /books_logins_total\{outcome="failure"\} 1/);
      assert.match(text, /books_notices\{status="pending"\} \d+/);
      assert.match(text, /process_cpu_seconds_total/);
    });
  });
}
