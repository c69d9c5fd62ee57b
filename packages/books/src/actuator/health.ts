import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import { mayReadOperationalData } from './access.js';

type Status = 'UP' | 'DOWN';

export interface HealthOptions {
  db: Database;
  metricsToken: string | undefined;
}

const READINESS_TIMEOUT_MS = 2000;

async function databaseHealth(db: Database): Promise<{ status: Status; details: Record<string, unknown> }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      db.query('select 1'),
      new Promise((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer in ${READINESS_TIMEOUT_MS} ms`)),
          READINESS_TIMEOUT_MS,
        );
      }),
    ]);
    return {
      status: 'UP',
      details: { database: db.driver, validationQuery: 'select 1', ms: Date.now() - started },
    };
  } catch (error) {
    return { status: 'DOWN', details: { database: db.driver, error: (error as Error).message } };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Spring Boot Actuator's health endpoints: `/actuator/health` (everything), and the groups
 * `/actuator/health/liveness` (the process answers) and `/actuator/health/readiness` (the database
 * answers `select 1` within 2 s). DOWN is 503. Public without details, as Spring's `show-details:
 * when-authorized`: admins (or the metrics token) also get the components.
 */
export async function healthRoutes(app: FastifyInstance, { db, metricsToken }: HealthOptions): Promise<void> {
  const respond = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: Status,
    components: Record<string, unknown>,
  ) => {
    reply.code(status === 'UP' ? 200 : 503);
    return mayReadOperationalData(request, metricsToken) ? { status, components } : { status };
  };

  app.get('/actuator/health/liveness', async (request, reply) =>
    respond(request, reply, 'UP', { livenessState: { status: 'UP' } }),
  );
  app.get('/actuator/health/readiness', async (request, reply) => {
    const database = await databaseHealth(db);
    return respond(request, reply, database.status, {
      db: database,
      readinessState: { status: database.status },
    });
  });
  app.get('/actuator/health', async (request, reply) => {
    const database = await databaseHealth(db);
    return respond(request, reply, database.status, {
      db: database,
      livenessState: { status: 'UP' },
      readinessState: { status: database.status },
    });
  });
}
