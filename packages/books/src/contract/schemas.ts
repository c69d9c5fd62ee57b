import type { components } from '../generated/api.js';

/** The contract's schemas, as openapi-typescript generates them from openapi/openapi.yaml. */
export type Schemas = components['schemas'];
