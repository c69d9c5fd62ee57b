import { authBasic, Controller, noHttpCache } from '../../src/index.js';

// A demo account; a real app would check a user store.
const checkPassword = (username: string, password: string) =>
  username === 'admin' && password === 'change-me';

/** `GET /admin`: Basic authentication, never cached. `curl -u admin:change-me http://127.0.0.1:8000/admin` */
export class Default extends Controller {
  @authBasic(checkPassword)
  @noHttpCache()
  GET() {
    return { user: this.request.getAuthBasic()?.username, from: this.request.ipAddress };
  }
}
