import { Controller, httpCache } from '../../../src/index.js';

/**
 * `GET /api/status`, callable from browsers on any origin (CORS with preflight), cacheable for a
 * minute; `GET /api/status/uptime` returns one field, selected by a positional argument.
 */
export class Default extends Controller {
  static override cors = true;

  @httpCache(60)
  GET(field: string | undefined = undefined) {
    const status = { ok: true, uptime: Math.round(process.uptime()) };
    return field === undefined ? status : { [field]: status[field as keyof typeof status] ?? null };
  }
}
