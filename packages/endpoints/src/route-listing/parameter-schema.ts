import type { StandardJSONSchemaV1 } from '@standard-schema/spec';
import { type Cast, isParamRule, type ParamRule } from '../binding/casts.js';
import type { RouteParameter } from './list.js';

export type JsonSchema = Record<string, unknown>;

function hasJsonSchema(cast: unknown): cast is StandardJSONSchemaV1 {
  const standard = (cast as { '~standard'?: { jsonSchema?: { input?: unknown } } } | null)?.['~standard'];
  return typeof standard?.jsonSchema?.input === 'function';
}

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses) of what a client sends for an argument with this
 * cast: `Number`, `Boolean`, `String`, `[T]`, or a Standard Schema that can describe itself (zod 4
 * can). Anything else (a custom function, a schema without JSON Schema output) is a string, which is
 * what arrives before the cast runs.
 */
export function castSchema(cast: Cast | undefined): JsonSchema {
  if (cast === undefined) return { type: 'string' };
  if (isParamRule(cast)) return ruleSchema(cast);
  if (Array.isArray(cast)) return { type: 'array', items: castSchema(cast[0] as Cast) };
  if (cast === Number) return { type: 'number' };
  if (cast === Boolean) return { type: 'boolean' };
  if (cast === String) return { type: 'string' };
  if (hasJsonSchema(cast)) {
    try {
      const { $schema: _dialect, ...schema } = cast['~standard'].jsonSchema.input({
        target: 'draft-2020-12',
      });
      return schema;
    } catch {
      // The library cannot express this schema in JSON Schema: document what arrives on the wire.
    }
  }
  return { type: 'string' };
}

/** A `param({…})` rule: its type's schema, narrowed by its choices, pattern and sizes. */
function ruleSchema(rule: ParamRule): JsonSchema {
  const schema = castSchema(rule.type);
  if (rule.choices) {
    // A list is checked item by item, so its items carry the choices.
    const target = schema.type === 'array' ? ((schema.items as JsonSchema | undefined) ?? schema) : schema;
    target.enum = [...rule.choices];
  }
  if (rule.regex !== undefined)
    schema.pattern = typeof rule.regex === 'string' ? rule.regex : rule.regex.source;
  const [low, high] =
    schema.type === 'number'
      ? ['minimum', 'maximum']
      : schema.type === 'array'
        ? ['minItems', 'maxItems']
        : ['minLength', 'maxLength'];
  if (rule.minSize !== undefined) schema[low] = rule.minSize;
  if (rule.maxSize !== undefined) schema[high] = rule.maxSize;
  if (rule.allowEmpty === false && schema.type === 'string' && rule.minSize === undefined)
    schema.minLength = 1;
  return schema;
}

/** A short type name for the route table: `number`, `string[]`, `"a" | "b"`, `object`. */
export function schemaLabel(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.type === 'array') return `${schemaLabel((schema.items as JsonSchema | undefined) ?? {})}[]`;
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(schemaLabel).join(' | ');
  return 'any';
}

/**
 * The schema of a parameter with its default. Without a cast a value is a string, unless the default
 * says otherwise (`options = { deep: true }` in a JSON body): then any type is documented.
 */
export function parameterSchema(param: RouteParameter): JsonSchema {
  const schema = castSchema(param.cast);
  if (!param.hasDefault || param.default === null) return schema;
  if (param.cast === undefined && typeof param.default !== 'string') return { default: param.default };
  return { ...schema, default: param.default };
}
