import { Controller } from '../../src/index.js';

/** `GET /` and `POST /` (form field `name`): the spec's README example. */
export class Default extends Controller {
  /** Answers the spec README's greeting. */
  GET() {
    return 'Default handler';
  }

  /** Greets `name`, sent as a form field or a JSON body. */
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
