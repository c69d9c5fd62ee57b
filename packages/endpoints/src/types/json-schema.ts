/**
 * A JSON Schema 2020-12 object. Its own module so the extraction's public declarations (which the
 * package's index reaches) do not import TypeScript's: an application's program would parse all of
 * typescript.d.ts (0.6 MB) for them.
 */
export type JsonSchema = Record<string, unknown>;
