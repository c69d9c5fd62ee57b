import { Controller } from '@platform/endpoints';

/**
 * `GET /health`: the probe of the container (deploy/compose.yaml's health check). The framework has no
 * health route of its own: the controllers are the whole app, so the app answers for itself.
 */
export class Default extends Controller {
  GET() {
    return { status: 'UP' };
  }
}
