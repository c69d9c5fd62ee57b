import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { unsafeValueIssues } from './unsafe-values.js';

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

/** The schema's validator, followed by the checks no schema can express (see unsafeValueIssues). */
function withUnsafeValueCheck(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown, context?: never) => {
    const valid = validate(data, context);
    const issues = [...(validate.errors ?? []), ...unsafeValueIssues(data)];
    checked.errors = issues.length === 0 ? null : issues;
    return valid && issues.length === 0;
  }) as ValidateFunction;
  // fastify passes the parent object only to functions that look like Ajv's, so coercion keeps working.
  Object.assign(checked, { schemaEnv: validate.schemaEnv, schema: validate.schema });
  return checked;
}

/**
 * Query and path values arrive as strings, so they are coerced to the contract's types (and a single
 * `sort` to an array). JSON bodies are not: `"title": 42` is an error, not the string "42".
 */
export function contractValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const coercing = compilerWith({ coerceTypes: 'array' });
  const strict = compilerWith({ coerceTypes: false });
  return ({ schema, httpPart }) =>
    withUnsafeValueCheck((httpPart === 'body' ? strict : coercing).compile(schema as object));
}
