import { Controller } from '../../src/index.js';

/** `GET /` → {"hello":"world"}. */
export class Default extends Controller {
  GET() {
    return { hello: 'world' };
  }
}
