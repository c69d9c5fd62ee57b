import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { type ContractDocument, loadContract } from '../../src/contract/document.js';

const contract = loadContract();
const CONTRACT_ID = 'https://books.local/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...contract, $id: CONTRACT_ID });

interface HeaderObject {
  $ref?: string;
  required?: boolean;
}

interface ResponseObject {
  $ref?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, { schema?: unknown }>;
}

interface OperationMatch {
  operationId: string;
  pointer: string;
  responses: Record<string, ResponseObject>;
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

function templateMatches(template: string, path: string): boolean {
  const pattern = template.replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${pattern}$`).test(path);
}

/** The contract operation for a method and concrete path, or undefined for routes outside the contract. */
export function findOperation(method: string, path: string): OperationMatch | undefined {
  for (const [template, item] of Object.entries((contract as ContractDocument).paths)) {
    if (!templateMatches(template, path)) continue;
    const operation = item[method.toLowerCase()] as
      | { operationId: string; responses: Record<string, ResponseObject> }
      | undefined;
    if (operation === undefined) return undefined;
    return {
      operationId: operation.operationId,
      pointer: `#/paths/${escapePointer(template)}/${method.toLowerCase()}`,
      responses: operation.responses,
    };
  }
  return undefined;
}

const validators = new Map<string, ValidateFunction>();

function validatorFor(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `${CONTRACT_ID}${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

/** The response's headers that the contract marks required are present and match their schemas. */
function assertRequiredHeaders(
  operationId: string,
  status: number,
  response: ResponseObject,
  responsePointer: string,
  headers: Headers,
) {
  for (const [name, declared] of Object.entries(response.headers ?? {})) {
    let pointer = `${CONTRACT_ID}${responsePointer}/headers/${escapePointer(name)}`;
    let header = declared;
    if (declared.$ref !== undefined) {
      pointer = `${CONTRACT_ID}${declared.$ref}`;
      const key = declared.$ref.split('/').pop() ?? '';
      header = (contract.components as { headers: Record<string, HeaderObject> }).headers[key] ?? {};
    }
    if (header.required !== true) continue;
    const value = headers.get(name);
    assert.ok(value !== null, `${operationId} ${status} must send the ${name} header`);
    let validate = validators.get(pointer);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: `${pointer}/schema` });
      validators.set(pointer, validate);
    }
    assert.ok(validate(value), `${operationId} ${status} ${name} '${value}' breaks the contract`);
  }
}

/**
 * Asserts that a response is one the contract declares for the operation: the status is listed, the
 * headers the contract requires are sent and valid, the media type is declared, and the body matches
 * that media type's schema.
 */
export function assertMatchesContract(
  method: string,
  path: string,
  status: number,
  contentType: string | null,
  body: unknown,
  headers: Headers,
): void {
  const operation = findOperation(method, path);
  assert.ok(operation, `${method} ${path} is not an operation of the contract`);
  const declared = operation.responses[String(status)];
  assert.ok(declared, `${operation.operationId} does not declare status ${status}: ${JSON.stringify(body)}`);
  let responsePointer = `${operation.pointer}/responses/${status}`;
  let response = declared;
  if (response.$ref !== undefined) {
    responsePointer = response.$ref;
    const name = response.$ref.split('/').pop() ?? '';
    response = (contract.components as { responses: Record<string, ResponseObject> }).responses[name] ?? {};
  }
  assertRequiredHeaders(operation.operationId, status, response, responsePointer, headers);
  if (response.content === undefined) {
    assert.equal(body, undefined, `${operation.operationId} ${status} declares no body`);
    return;
  }
  const mediaType = (contentType ?? '').split(';')[0]?.trim() ?? '';
  assert.ok(
    mediaType in response.content,
    `${operation.operationId} ${status} declares ${Object.keys(response.content).join(', ')}, got '${mediaType}'`,
  );
  const validate = validatorFor(`${responsePointer}/content/${escapePointer(mediaType)}/schema`);
  assert.ok(
    validate(body),
    `${operation.operationId} ${status} body breaks the contract: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
  );
}
