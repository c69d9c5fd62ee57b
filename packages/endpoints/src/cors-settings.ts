// The CORS option of a controller class: a setting the class declares (`static cors`), so it sits below the
// Controller that declares it and the decorator that applies it (extras/cors.ts).

export interface CorsSettings {
  /** Allowed origins: a list, or a predicate; every origin when absent. */
  origins?: readonly string[] | ((origin: string) => boolean);
  /** Send `Access-Control-Allow-Credentials: true` (default true, as the reference does). */
  credentials?: boolean;
  /** `Access-Control-Max-Age` of preflight answers, in seconds (default 3600). */
  maxAge?: number;
}

/** `static cors = true` or `static cors = { … }` on a controller class. */
export type CorsOption = boolean | CorsSettings;
