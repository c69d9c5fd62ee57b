import { Controller } from '../../src/index.js';

/** `GET /` and `POST /` (form field `name`): the spec's README example. */
export class Default extends Controller {
  GET() {
    return 'Default handler';
  }

  POST({ name }: { name: string }) {
    return `hello ${name}`;
  }
}

/** `GET /foo`. */
export class Foo extends Controller {
  GET() {
    return 'Foo handler';
  }
}
