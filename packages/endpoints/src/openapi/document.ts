import { STATUS_CODES } from 'node:http';
import { resolve } from 'node:path';
import { readModuleNotes } from '../discovery/source.js';
import { handlerNotes } from '../extras/annotations.js';
import { keywordPlace, type Route, type RouteParameter } from '../route-listing/list.js';
import { castSchema, type JsonSchema, parameterSchema } from '../route-listing/parameter-schema.js';
import { type HandlerTypes, handlerKey, type ParameterType, type TypeExtraction } from '../types/extract.js';
import { handlerOutcomes, type Outcomes } from './outcomes.js';

/** Options of `app.openapi()`, `createApp({ openapi })` and `endpoints openapi`. */
export interface OpenApiOptions {
  /** `info.title` (default `endpoints`). */
  title?: string;
  /** `info.version`, the version of the API (default `0.0.0`). */
  version?: string;
  /** `info.description` (default: a paragraph on the framework's conventions). */
  description?: string;
  /** `info.license`, e.g. `{ name: 'MIT', identifier: 'MIT' }` (default: none). */
  license?: { name: string; identifier?: string; url?: string };
  /** `servers` (default `[{ url: '/' }]`: the host that serves the document). */
  servers?: readonly { url: string; description?: string }[];
  /**
   * A tsconfig.json: read parameter and return types from the handlers through the TypeScript
   * compiler (loaded only then). Without it, parameters are typed by `static types` alone and
   * response bodies are any JSON.
   */
  project?: string;
}

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

const DEFAULT_DESCRIPTION =
  'Generated from the controllers by endpoints. Required positional arguments are path segments; ' +
  'keywords are query parameters for GET, DELETE and HEAD, and a JSON or form body otherwise. ' +
  'Every error body is a JSON string holding the message. A method that a path does not list ' +
  'answers 501, with an Allow header naming the methods it has.';

/** The HTTP methods OpenAPI 3.1 can describe; other verbs (PROPFIND, …) appear in the route table only. */
const OPENAPI_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'];
/** What `ANY` is documented as, besides the methods its class defines itself. */
const ANY_AS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: an unknown, duplicate or missing keyword, a failed cast or validation, or an unreadable body',
  401: 'Authentication required; the WWW-Authenticate header names the scheme',
  403: 'The Origin is not allowed (CORS)',
  404: 'Not found: too many or too few positional arguments, or the handler said so',
  413: 'The request body is larger than the limit',
};

const SECURITY_SCHEMES: Record<string, { name: string; scheme: JsonSchema }> = {
  basic: { name: 'basicAuth', scheme: { type: 'http', scheme: 'basic' } },
  bearer: { name: 'bearerAuth', scheme: { type: 'http', scheme: 'bearer' } },
};

const ERROR_REF = { $ref: '#/components/schemas/Error' };

interface Docs {
  readonly summary: string;
  readonly description: string | undefined;
  readonly classDoc: string | undefined;
}

/** The first paragraph, on one line; cut at its first sentence when it is long. */
function summaryOf(doc: string): string {
  const paragraph = (doc.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
  if (paragraph.length <= 120) return paragraph;
  const sentence = /^.+?[.!?](?=\s|$)/.exec(paragraph);
  return sentence ? sentence[0] : paragraph;
}

function docsOf(route: Route, method: string, cwd: string): Docs {
  const notes = readModuleNotes(resolve(cwd, route.file));
  const className = route.handler.Class.name || route.exportName;
  const classDoc = notes.classDocs.get(className);
  const methodDoc = notes.methodDocs.get(`${className}.${route.method}`);
  const doc = methodDoc ?? classDoc;
  const summary = doc ? summaryOf(doc) : `${method} ${classPath(route)}`;
  const parts: string[] = [];
  if (methodDoc && methodDoc.replace(/\s+/g, ' ').trim() !== summary) parts.push(methodDoc);
  if (route.rest)
    parts.push('Further path segments are passed to the handler as extra positional arguments.');
  return { summary, description: parts.length > 0 ? parts.join('\n\n') : undefined, classDoc };
}

const classPath = (route: Route) => `/${route.segments.join('/')}`;

/** The handler a route runs, as the type extractor names it. */
export const routeRef = (route: Route, cwd: string) => ({
  file: resolve(cwd, route.file),
  exportName: route.exportName,
  method: route.method,
});

function words(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

function operationIdOf(method: string, route: Route, positionals: readonly RouteParameter[]): string {
  const path = route.segments.map(words).join('') || 'Root';
  const by = positionals.length > 0 ? `By${positionals.map((param) => words(param.name)).join('And')}` : '';
  return `${method.toLowerCase()}${path}${by}`;
}

function errorResponse(status: number): JsonSchema {
  const response: JsonSchema = {
    description: ERROR_DESCRIPTIONS[status] ?? STATUS_CODES[status] ?? `Status ${status}`,
    content: { 'application/json': { schema: ERROR_REF } },
  };
  if (status === 401) response.headers = { 'WWW-Authenticate': { schema: { type: 'string' } } };
  return response;
}

function successResponse(
  status: number,
  mediaType: string | undefined,
  returns: JsonSchema | null | undefined,
): JsonSchema {
  const description = STATUS_CODES[status] ?? `Status ${status}`;
  if (status === 204 || status === 304) return { description };
  if (status >= 300 && status < 400) {
    return { description, headers: { Location: { schema: { type: 'string' } } } };
  }
  // Content keys are bare media types: `text/csv`, not `text/csv; charset=utf-8`.
  const type = (mediaType ?? 'application/json').split(';')[0]?.trim() ?? 'application/json';
  const json = type === 'application/json' || type.endsWith('+json');
  const schema = json ? (returns ?? {}) : { type: 'string' };
  return { description, content: { [type]: { schema } } };
}

/** A path item's operations in the order OpenAPI lists the methods (get, put, post, delete, …). */
function inMethodOrder(item: Record<string, unknown>): Record<string, unknown> {
  const rank = (method: string) => OPENAPI_METHODS.indexOf(method.toUpperCase());
  return Object.fromEntries(Object.entries(item).sort(([a], [b]) => rank(a) - rank(b)));
}

/** The methods a route is documented under: its own, or for `ANY` the common ones its class lacks. */
function documentedMethods(route: Route, classMethods: ReadonlySet<string>): string[] {
  if (route.method === 'ANY') return ANY_AS.filter((method) => !classMethods.has(method));
  return OPENAPI_METHODS.includes(route.method) ? [route.method] : [];
}

/**
 * A parameter's schema: its cast or Standard Schema from `static types` when it has one (they decide
 * what the handler receives), else its type in the signature when the compiler read it, else what
 * the cast-free wire carries (`parameterSchema`).
 */
function typedSchema(param: RouteParameter, typed: ParameterType | undefined): JsonSchema {
  if (param.cast !== undefined || typed === undefined) return parameterSchema(param);
  const schema: JsonSchema = { ...typed.schema };
  if (param.hasDefault && param.default !== null && param.default !== undefined)
    schema.default = param.default;
  return schema;
}

/** A parameter object; the signature's `@param` text, when there is one, is its description. */
function parameterObject(param: RouteParameter, place: 'path' | 'query', typed: ParameterType | undefined) {
  const parameter: JsonSchema = { name: param.name, in: place };
  if (typed?.description) parameter.description = typed.description;
  parameter.required = place === 'path' || param.required;
  parameter.schema =
    place === 'path' && (param.cast !== undefined || typed === undefined)
      ? castSchema(param.cast)
      : typedSchema(param, typed);
  return parameter;
}

function pathParameters(
  positionals: readonly RouteParameter[],
  types: HandlerTypes | undefined,
): JsonSchema[] {
  return positionals.map((param, index) => parameterObject(param, 'path', types?.positionals[index]));
}

function queryParameters(route: Route, types: HandlerTypes | undefined): JsonSchema[] {
  const parameters: JsonSchema[] = route.keywords.map((param) =>
    parameterObject(param, 'query', types?.keywords.get(param.name)),
  );
  if (route.keywordRest) {
    parameters.push({
      name: 'keywords',
      in: 'query',
      description: 'Any further keywords, which the handler collects',
      style: 'form',
      explode: true,
      schema: { type: 'object', additionalProperties: { type: 'string' } },
    });
  }
  return parameters;
}

/** The keyword object as a body schema; unknown keywords are a 400 unless the handler collects them. */
function bodySchema(route: Route, types: HandlerTypes | undefined): JsonSchema {
  const required = route.keywords.filter((param) => param.required).map((param) => param.name);
  const property = (param: RouteParameter) => {
    const typed = types?.keywords.get(param.name);
    const schema = typedSchema(param, typed);
    return typed?.description ? { ...schema, description: typed.description } : schema;
  };
  return {
    type: 'object',
    properties: Object.fromEntries(route.keywords.map((param) => [param.name, property(param)])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: route.keywordRest,
  };
}

function requestBody(schemaName: string, schema: JsonSchema): JsonSchema {
  const ref = { $ref: `#/components/schemas/${schemaName}` };
  return {
    required: Array.isArray(schema.required),
    content: {
      'application/json': { schema: ref },
      'application/x-www-form-urlencoded': { schema: ref },
      'multipart/form-data': { schema: ref },
    },
  };
}

/** Success statuses from the handler's code, then the status table's errors that apply. */
function responses(
  route: Route,
  outcome: Outcomes,
  noteStatuses: readonly number[],
  hasBody: boolean,
  returns: JsonSchema | null | undefined,
) {
  const result: Record<string, JsonSchema> = {};
  for (const status of outcome.success)
    result[String(status)] = successResponse(status, route.handler.mediaType, returns);
  const errors = new Set([400, ...outcome.errors, ...noteStatuses]);
  if (route.positionals.length > 0 || route.rest) errors.add(404);
  if (route.handler.cors) errors.add(403);
  if (hasBody) errors.add(413);
  for (const status of [...errors].sort((a, b) => a - b)) result[String(status)] = errorResponse(status);
  return result;
}

/** The class paths' methods, so `ANY` is documented only for the methods its class lacks. */
function methodsByClassPath(routes: readonly Route[]): Map<string, Set<string>> {
  const methods = new Map<string, Set<string>>();
  for (const route of routes) {
    const key = classPath(route);
    methods.set(key, (methods.get(key) ?? new Set()).add(route.method));
  }
  return methods;
}

/**
 * Builds the OpenAPI 3.1 document of a set of routes. Paths come from the class paths plus the
 * positionals (each optional positional adds a longer path); keywords become query parameters or a
 * request body; types come from `static types`; summaries from doc comments; responses from the
 * framework's status table and the handler's own code. With `types` (read by the compiler, see
 * types/extract.ts), parameters without a cast and response bodies are typed from the signatures.
 * `onOperation` hears of each operation as it is built, with the route it documents.
 */
export function openapiDocument(
  routes: readonly Route[],
  options: OpenApiOptions,
  cwd: string,
  types?: TypeExtraction,
  onOperation?: (route: Route, operation: JsonSchema) => void,
): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = {
    Error: { type: 'string', description: 'The error message; every error body is this JSON string.' },
  };
  // The extractor never names a type `Error` (it reserves the name), so the framework's stays.
  Object.assign(schemas, types?.schemas);
  const securitySchemes: Record<string, JsonSchema> = {};
  const tags = new Map<string, string>();
  const operationIds = new Set<string>();
  const outcomes = handlerOutcomes([...new Set(routes.map((route) => route.handler.fn))]);
  const classMethods = methodsByClassPath(routes);

  for (const route of routes) {
    const tag = classPath(route);
    const outcome = outcomes.get(route.handler.fn) ?? { success: [200], errors: [] };
    const notes = handlerNotes(route.handler.fn);
    const security = notes.flatMap((note) => {
      const known = note.auth ? SECURITY_SCHEMES[note.auth] : undefined;
      if (!known) return [];
      securitySchemes[known.name] = known.scheme;
      return [{ [known.name]: [] }];
    });
    const noteStatuses = notes.flatMap((note) => note.statuses ?? []);
    const handlerTypes = types?.handlers.get(handlerKey(routeRef(route, cwd)));

    for (const method of documentedMethods(route, classMethods.get(tag) ?? new Set())) {
      const docs = docsOf(route, method, cwd);
      if (!tags.has(tag)) tags.set(tag, docs.classDoc ?? `${route.exportName} in ${route.file}`);
      const inQuery = keywordPlace(method) === 'query';
      const hasBody = !inQuery && (route.keywords.length > 0 || route.keywordRest);
      for (let count = route.minPositionals; count <= route.positionals.length; count += 1) {
        const positionals = route.positionals.slice(0, count);
        const path = `/${[...route.segments, ...positionals.map((param) => `{${param.name}}`)].join('/')}`;
        const baseId = operationIdOf(method, route, positionals);
        let operationId = baseId;
        for (let suffix = 2; operationIds.has(operationId); suffix += 1) operationId = `${baseId}${suffix}`;
        operationIds.add(operationId);

        const parameters = [
          ...pathParameters(positionals, handlerTypes),
          ...(inQuery ? queryParameters(route, handlerTypes) : []),
        ];
        const operation: JsonSchema = { operationId, summary: docs.summary };
        if (docs.description) operation.description = docs.description;
        operation.tags = [tag];
        if (parameters.length > 0) operation.parameters = parameters;
        if (hasBody) {
          const schemaName = `${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}Body`;
          schemas[schemaName] = bodySchema(route, handlerTypes);
          operation.requestBody = requestBody(schemaName, schemas[schemaName]);
        }
        operation.responses = responses(route, outcome, noteStatuses, hasBody, handlerTypes?.returns);
        if (security.length > 0) operation.security = security;
        onOperation?.(route, operation);
        paths[path] = { ...paths[path], [method.toLowerCase()]: operation };
      }
    }
  }

  const info: JsonSchema = {
    title: options.title ?? 'endpoints',
    version: options.version ?? '0.0.0',
    description: options.description ?? DEFAULT_DESCRIPTION,
  };
  if (options.license) info.license = { ...options.license };
  const servers = options.servers && options.servers.length > 0 ? options.servers : [{ url: '/' }];
  const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => a.localeCompare(b);
  const components: JsonSchema = { schemas: Object.fromEntries(Object.entries(schemas).sort(byKey)) };
  if (Object.keys(securitySchemes).length > 0) components.securitySchemes = securitySchemes;
  return {
    openapi: '3.1.0',
    info,
    servers: servers.map((server) => ({ ...server })),
    // Operations without their own `security` need no authentication.
    security: [],
    tags: [...tags].sort(byKey).map(([name, description]) => ({ name, description })),
    paths: Object.fromEntries(
      Object.entries(paths)
        .sort(byKey)
        .map(([path, item]) => [path, inMethodOrder(item)]),
    ),
    components,
  };
}
