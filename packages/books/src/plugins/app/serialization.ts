import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';

type Serialize = (data: unknown) => string;

/**
 * Response serialisers by schema text, shared by every app of the process, for the reason validators are
 * (see validation.ts): each app gets its own copy of the contract, so nothing was reused, and building the
 * contract's serialisers again cost each app about 60 ms of CPU. The contract's responses reference no
 * shared schemas (glue inlines every `$ref`), so the text alone decides the serialiser.
 */
const built = new Map<string, Serialize>();

export function contractSerializerCompiler(): FastifySerializerCompiler<unknown> {
  return ({ schema }) => {
    const key = JSON.stringify(schema);
    let serialize = built.get(key);
    if (serialize === undefined) {
      serialize = fastJsonStringify(schema as object);
      built.set(key, serialize);
    }
    return serialize;
  };
}
