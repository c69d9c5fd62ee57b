import { readFileSync } from 'node:fs';
import { contractJsonPath } from '../paths.js';

/** A security requirement: scheme name → scopes (for `sessionCookie`, the roles needed). */
export type SecurityRequirement = Record<string, string[]>;

interface OperationObject {
  operationId: string;
  security?: SecurityRequirement[];
  requestBody?: { required?: boolean };
  parameters?: { $ref?: string }[];
  responses?: Record<string, { content?: Record<string, unknown> }>;
}

export interface ContractDocument {
  security?: SecurityRequirement[];
  paths: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

let parsed: ContractDocument | undefined;

/**
 * A fresh copy of the contract each call: fastify plugins annotate the objects they are given. It is read
 * once per process from its JSON form (`openapi/openapi.json`, generated from the YAML, which stays the
 * source: `test/contract.test.ts` fails on drift): parsing the YAML cost every start about 180 ms of CPU,
 * the JSON costs 1. A copy costs a few milliseconds (a test process builds dozens of apps).
 */
export function loadContract(): ContractDocument {
  parsed ??= JSON.parse(readFileSync(contractJsonPath, 'utf8')) as ContractDocument;
  return structuredClone(parsed);
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

/** The security requirements of every operation, keyed by operationId (operation level, else document level). */
export function securityByOperation(contract: ContractDocument): Map<string, SecurityRequirement[]> {
  const result = new Map<string, SecurityRequirement[]>();
  for (const pathItem of Object.values(contract.paths)) {
    for (const [method, value] of Object.entries(pathItem)) {
      if (!HTTP_METHODS.has(method)) continue;
      const operation = value as OperationObject;
      result.set(operation.operationId, operation.security ?? contract.security ?? []);
    }
  }
  return result;
}

/** The operationIds whose request body the contract marks as required. */
export function operationsRequiringBody(contract: ContractDocument): Set<string> {
  const result = new Set<string>();
  for (const pathItem of Object.values(contract.paths)) {
    for (const [method, value] of Object.entries(pathItem)) {
      if (!HTTP_METHODS.has(method)) continue;
      const operation = value as OperationObject;
      if (operation.requestBody?.required === true) result.add(operation.operationId);
    }
  }
  return result;
}

/** The operationIds that declare the shared parameter `components/parameters/<name>`. */
export function operationsWithParameter(contract: ContractDocument, name: string): Set<string> {
  const ref = `#/components/parameters/${name}`;
  const result = new Set<string>();
  for (const pathItem of Object.values(contract.paths)) {
    for (const [method, value] of Object.entries(pathItem)) {
      if (!HTTP_METHODS.has(method)) continue;
      const operation = value as OperationObject;
      if (operation.parameters?.some((parameter) => parameter.$ref === ref))
        result.add(operation.operationId);
    }
  }
  return result;
}

/** The media types of each operation's success answers (2xx), keyed by operationId. */
export function producedByOperation(contract: ContractDocument): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const pathItem of Object.values(contract.paths)) {
    for (const [method, value] of Object.entries(pathItem)) {
      if (!HTTP_METHODS.has(method)) continue;
      const operation = value as OperationObject;
      const types = new Set<string>();
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (status.startsWith('2')) for (const type of Object.keys(response.content ?? {})) types.add(type);
      }
      result.set(operation.operationId, [...types]);
    }
  }
  return result;
}
