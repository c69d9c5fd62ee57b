import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const shared: Options = {
  // Unknown body fields are an error (400), not silently dropped.
  removeAdditional: false,
  // Report every invalid field, not only the first.
  allErrors: true,
  useDefaults: true,
  // OpenAPI 3.1 nullable fields are `type: [string, 'null']`.
  allowUnionTypes: true,
};

function compilerWith(options: Options) {
  const ajv = new Ajv({ ...shared, ...options });
  addFormats.default(ajv);
  return ajv;
}

/**
 * Query and path values arrive as strings, so they are coerced to the contract's types (and a single
 * `sort` to an array). JSON bodies are not: `"title": 42` is an error, not the string "42".
 */
export function contractValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const coercing = compilerWith({ coerceTypes: 'array' });
  const strict = compilerWith({ coerceTypes: false });
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
}
