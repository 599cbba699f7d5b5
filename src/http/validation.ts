import { Ajv, type Options } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

const common: Options = { removeAdditional: false, useDefaults: true, allErrors: false, strict: false };

/**
 * Query strings and paths are text on the wire: coerce them (and a single value to a one-item
 * array). JSON bodies are typed already: no coercion, so `[{...}]` never passes for `{...}` and
 * `"10"` never passes for a number.
 */
const compilers: Record<string, Ajv> = {
  body: new Ajv({ ...common, coerceTypes: false }),
  querystring: new Ajv({ ...common, coerceTypes: 'array' }),
  params: new Ajv({ ...common, coerceTypes: 'array' }),
  headers: new Ajv({ ...common, coerceTypes: 'array' }),
};

/** Fastify validator compiler choosing the AJV instance by request part. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = compilers[httpPart ?? 'body'] ?? compilers.body;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};
