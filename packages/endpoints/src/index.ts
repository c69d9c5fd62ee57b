export { type App, createApp, surveyRoutes } from './app.js';
export type { AsyncApiDocument } from './asyncapi/document.js';
export { type Cast, type CastTable, type ParamOptions, type ParamRule, param } from './binding/casts.js';
export { keepSignature } from './binding/signature.js';
export { Controller, type ControllerClass, type RequestParams } from './controller.js';
export type { CorsOption, CorsSettings } from './cors-settings.js';
export type { SkippedEntry, SkipReason } from './discovery/report.js';
export {
  AccessDenied,
  type AccessDeniedOptions,
  CallError,
  type CallErrorOptions,
  CallStop,
  EndpointsError,
  type EndpointsErrorCode,
  isCallError,
  Redirect,
} from './errors.js';
export { annotate, type HandlerNotes } from './extras/annotations.js';
export {
  type AuthCheck,
  AuthDecorator,
  type AuthOptions,
  authBasic,
  authBearer,
  type BasicCheck,
  type BearerCheck,
} from './extras/auth.js';
export { httpCache, noHttpCache } from './extras/cache.js';
export {
  type BeforeHandler,
  ControllerDecorator,
  type Decorator,
  type DecoratorHooks,
  decorate,
  runBefore,
} from './extras/decorate.js';
export {
  MemoryRateLimitStore,
  type RateLimitOptions,
  type RateLimitStore,
  rateLimit,
} from './extras/rate-limit.js';
export { type AcceptEntry, AcceptHeader } from './http/accept.js';
export { errorBody } from './http/render.js';
export { type BasicCredentials, EndpointRequest, EndpointUrl } from './http/request.js';
export { EndpointResponse } from './http/response.js';
export type { OpenApiDocument, OpenApiOptions } from './openapi/document.js';
export type { ParameterRow, RouteRow, RouteTable } from './route-listing/table.js';
export type { AppOptions, OpenApiSetting, Settings } from './settings.js';
