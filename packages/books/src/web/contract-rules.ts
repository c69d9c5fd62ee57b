import type { ValidateFunction } from 'ajv';
import { type ContractDocument, loadContract, securityByOperation } from '../contract/document.js';
import type { OperationId } from '../http/operations.js';
import { contractValidatorCompiler } from '../plugins/app/validation.js';

/**
 * The pages take their input rules from the contract, as the API does: the query of a list page is
 * the list operation's query, a book form is the contract's BookInput, and who may use a page is the
 * security requirement of the operation it performs. There is no second copy of any rule.
 */
const contract: ContractDocument = loadContract();

/** `node` with every local `$ref` replaced by what it points at (the contract's schemas have no cycles). */
function resolved(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(resolved);
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    let target: unknown = contract;
    for (const segment of ref.slice(2).split('/')) target = (target as Record<string, unknown>)[segment];
    return resolved(target);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolved(value)]));
}

interface ParameterObject {
  name: string;
  in: string;
  required?: boolean;
  schema: unknown;
}

/** An operation's parameters: the path item's, then its own (which override one of the same name). */
function parametersOfOperation(operationId: OperationId): ParameterObject[] {
  for (const pathItem of Object.values(contract.paths)) {
    for (const value of Object.values(pathItem)) {
      if ((value as { operationId?: string }).operationId !== operationId) continue;
      const shared = (resolved(pathItem.parameters ?? []) as ParameterObject[]) ?? [];
      const own = (resolved((value as { parameters?: unknown }).parameters ?? []) as ParameterObject[]) ?? [];
      const byKey = new Map(
        [...shared, ...own].map((parameter) => [`${parameter.in}:${parameter.name}`, parameter]),
      );
      return [...byKey.values()];
    }
  }
  throw new Error(`the contract has no operation ${operationId}`);
}

interface ParametersSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required: string[];
}

/** The query or path parameters of a contract operation as one schema, for a page doing the same thing. */
export function parametersOf(operationId: OperationId, location: 'query' | 'path'): ParametersSchema {
  const chosen = parametersOfOperation(operationId).filter((parameter) => parameter.in === location);
  return {
    type: 'object',
    properties: Object.fromEntries(chosen.map((parameter) => [parameter.name, parameter.schema])),
    required: chosen.filter((parameter) => parameter.required).map((parameter) => parameter.name),
  };
}

/** One parameter's schema, optional, for a page that adds it to another operation's parameters. */
export function optionalParameter(operationId: OperationId, location: 'query' | 'path', name: string) {
  const schema = parametersOf(operationId, location).properties[name];
  if (schema === undefined)
    throw new Error(`the contract's ${operationId} has no ${location} parameter ${name}`);
  return schema;
}

/** The contract's security requirements of an operation (the page doing the same thing needs the same). */
export function securityOf(operationId: OperationId) {
  return securityByOperation(contract).get(operationId) ?? [];
}

/** A body validator for a contract schema, with the same compiler (and extra checks) as API bodies. */
export function bodyValidator(schemaName: string): ValidateFunction {
  const schema = resolved((contract.components as { schemas: Record<string, unknown> }).schemas[schemaName]);
  return contractValidatorCompiler()({
    schema,
    httpPart: 'body',
    method: 'POST',
    url: '',
  }) as ValidateFunction;
}
