import { createRequire } from 'node:module';
import type { Ajv2020 as AjvType } from 'ajv/dist/2020.js';

type JsonSchema = Record<string, unknown>;

/** Where a value breaks its schema: the JSON pointer of the bad field (`/0/name`, or empty for the whole). */
export interface Mismatch {
  readonly path: string;
  readonly message: string;
}

/** `(value) → null` when it fits, else the first mismatch. */
export type Check = (value: unknown) => Mismatch | null;

/** The documented schemas of one handler, as checks: its JSON request body and its success bodies by status. */
export interface HandlerChecks {
  readonly request: Check | undefined;
  readonly responses: ReadonlyMap<number, Check>;
}

/** The id under which the document's components are registered, so `$ref`s resolve into them. */
const COMPONENTS_ID = 'endpoints:components';

type AjvClass = new (options: Record<string, unknown>) => AjvType;

/** Ajv is loaded when validation is on: applications with it off never load it. */
function loadAjv(): { Ajv: AjvClass; addFormats: (ajv: AjvType) => void } {
  const require = createRequire(import.meta.url);
  const ajv = require('ajv/dist/2020.js') as { default: AjvClass };
  const formats = require('ajv-formats') as { default: (ajv: AjvType) => void };
  return { Ajv: ajv.default, addFormats: formats.default };
}

/** Points a document-relative `$ref` (`#/components/schemas/User`) at the registered components. */
function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? `${COMPONENTS_ID}${value}`
        : anchored(value),
    ]),
  );
}

/**
 * Compiles schemas of one document with one Ajv (JSON Schema 2020-12, formats on), each schema once:
 * the components are registered once and every check refers into them.
 */
export class SchemaCompiler {
  readonly #ajv: AjvType;

  constructor(components: Readonly<Record<string, JsonSchema>>) {
    const { Ajv, addFormats } = loadAjv();
    // strict off: documents carry OpenAPI's own keywords (`format: binary`, descriptions, examples).
    this.#ajv = new Ajv({ strict: false, allErrors: false });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ $id: COMPONENTS_ID, components: { schemas: components } });
  }

  compile(schema: JsonSchema): Check {
    const validate = this.#ajv.compile(anchored(schema) as JsonSchema);
    return (value) => {
      if (validate(value)) return null;
      const error = validate.errors?.[0];
      const extra =
        error?.keyword === 'additionalProperties' ? ` '${String(error.params.additionalProperty)}'` : '';
      return { path: error?.instancePath ?? '', message: `${error?.message ?? 'does not match'}${extra}` };
    };
  }
}

type Json = Record<string, unknown>;

const jsonSchemaOf = (holder: Json | undefined): JsonSchema | undefined =>
  (holder?.content as Record<string, { schema?: JsonSchema }> | undefined)?.['application/json']?.schema;

/** A schema that checks something: `{}` (any JSON) and absent schemas check nothing. */
const checks = (schema: JsonSchema | undefined): schema is JsonSchema =>
  schema !== undefined && Object.keys(schema).length > 0;

/** The checks of one documented operation: its JSON request body, and each success status with a JSON body. */
export function operationChecks(compiler: SchemaCompiler, operation: Json): HandlerChecks {
  const request = jsonSchemaOf(operation.requestBody as Json | undefined);
  const responses = new Map<number, Check>();
  for (const [status, response] of Object.entries((operation.responses as Record<string, Json>) ?? {})) {
    const schema = jsonSchemaOf(response);
    if (Number(status) < 400 && checks(schema)) responses.set(Number(status), compiler.compile(schema));
  }
  return { request: checks(request) ? compiler.compile(request) : undefined, responses };
}

/** `/0/name: must be string`; `/` is the whole value. */
export function describeMismatch(mismatch: Mismatch): string {
  return `${mismatch.path || '/'}: ${mismatch.message}`;
}
