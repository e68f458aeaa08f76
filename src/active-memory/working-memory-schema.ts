/**
 * The schema a working memory is kept to: a zod schema, or a JSON Schema (converted with zod's
 * `fromJSONSchema`, so no other validator is needed). A document is checked before every write.
 * @module
 */
import { z } from 'zod';
import { InvalidInputError } from '../errors.js';
import type { JsonObject, JsonValue } from '../message/schema.js';

/** A JSON Schema document (draft 2020-12, draft 7 or draft 4), as plain JSON. */
export type JsonSchema = JsonObject;

/** What a working memory's `schema` may be: a zod schema, or a JSON Schema. */
export type WorkingMemorySchema = z.ZodType | JsonSchema;

/** A checked schema: its validator and the JSON Schema shown to the model. */
export interface CheckedSchema {
  /** Why `document` does not match, or `undefined` when it does. */
  problem(document: JsonValue): string | undefined;
  /** The JSON Schema form, for the model's prompt and tool description. */
  readonly jsonSchema: JsonSchema;
}

function isZod(schema: unknown): schema is z.ZodType {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    typeof (schema as { safeParse?: unknown }).safeParse === 'function' &&
    '_zod' in schema
  );
}

/** `schema` ready to check documents; `INVALID_ARGUMENT` when it is neither a zod schema nor a usable JSON Schema. */
export function checkSchema(schema: unknown): CheckedSchema {
  let validator: z.ZodType;
  let jsonSchema: JsonSchema;
  try {
    if (isZod(schema)) {
      validator = schema;
      jsonSchema = z.toJSONSchema(schema, { unrepresentable: 'any' }) as JsonSchema;
    } else if (typeof schema === 'object' && schema !== null && !Array.isArray(schema)) {
      // Older zod 4 releases have no converter: say what is missing rather than accept every document.
      if (typeof z.fromJSONSchema !== 'function')
        throw new InvalidInputError('MISSING_DEPENDENCY', 'A JSON Schema working memory needs zod 4.2 or later');
      validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
      jsonSchema = schema as JsonSchema;
    } else {
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        'The working memory schema must be a zod schema or a JSON Schema object',
      );
    }
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `The working memory schema could not be used: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return Object.freeze({
    jsonSchema,
    problem(document: JsonValue): string | undefined {
      const result = validator.safeParse(document);
      return result.success ? undefined : z.prettifyError(result.error);
    },
  });
}
