import { Controller } from '@platform/endpoints';

/** `GET /` → {"hello":"world"}. */
export class Default extends Controller {
  GET() {
    return { hello: 'world' };
  }
}
