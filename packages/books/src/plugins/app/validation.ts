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
const coercing = compilerWith({ coerceTypes: 'array' });
const strict = compilerWith({ coerceTypes: false });

/**
 * Validators by part and schema text, shared by every app of the process: each app is given its own copy
 * of the contract, so Ajv's own cache (by schema object) missed, and compiling the contract's schemas was
 * a tenth of the CPU of a test process that builds dozens of apps. The contract's schemas bound its size.
 */
const compiled = new Map<string, ValidateFunction>();

export function contractValidatorCompiler(): FastifySchemaCompiler<unknown> {
  return ({ schema, httpPart }) => {
    const compiler = httpPart === 'body' ? strict : coercing;
    const key = `${compiler === strict ? 'strict' : 'coercing'} ${JSON.stringify(schema)}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = withUnsafeValueCheck(compiler.compile(schema as object));
      compiled.set(key, validate);
    }
    return validate;
  };
}
