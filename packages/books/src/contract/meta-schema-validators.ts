import { Validator } from '@seriousme/openapi-schema-validator';

type MetaSchemaValidator = (specification: unknown) => boolean;
interface ValidatorInternals {
  getAjvValidator(version: string): MetaSchemaValidator;
}

const compiledByVersion = new Map<string, MetaSchemaValidator>();
let installed = false;

/**
 * fastify-openapi-glue checks the contract against the OpenAPI meta-schema with a new `Validator` for every
 * app, and each `Validator` compiles that meta-schema with Ajv on first use: about 0.2 s of CPU per app,
 * and more than the contract's own schemas cost a process that builds many apps (the test suites build
 * one per suite). The compiled meta-schema depends only on the OpenAPI version, so every `Validator` of
 * the process shares one per version. Glue has no option to skip or share it, hence the prototype.
 * `test/contract-meta-schema.test.ts` fails if an upgrade of the validator leaves this without effect.
 */
export function shareMetaSchemaValidators(): void {
  const prototype = Validator.prototype as unknown as ValidatorInternals;
  const compile = prototype.getAjvValidator;
  if (installed || typeof compile !== 'function') return;
  installed = true;
  prototype.getAjvValidator = function shared(this: ValidatorInternals, version: string) {
    let validate = compiledByVersion.get(version);
    if (validate === undefined) {
      validate = compile.call(this, version);
      compiledByVersion.set(version, validate);
    }
    return validate;
  };
}
