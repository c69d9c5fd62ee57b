import { Controller } from '@platform/endpoints';

/** `GET /`: the example app's greeting; `GET /?name=Ada` greets by name. */
export class Default extends Controller {
  static override types = { GET: { name: String } };

  GET({ name = 'world' }: { name?: string } = {}) {
    return `hello ${name}`;
  }
}
