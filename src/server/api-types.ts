/**
 * The API's answers as TypeScript types, inferred from the zod schemas its routes declare (and
 * its OpenAPI document is generated from): what a client reads. Types only, so a browser client
 * imports it with `import type` and its bundle gets no server code (the web session browser
 * does; .dependency-cruiser.cjs lets it import nothing else of src/ outside src/web).
 * @module
 */
import type { z } from 'zod';
import type { JsonObject, JsonValue } from '../message/schema.js';
import type { listPageSchema, messageRangeSchema, messageSchema, summarySchema, whoSchema } from './schemas.js';
import type { sessionThreadSchema } from './thread-schemas.js';
import type { sessionStatsSchema, timelineSchema } from './view-schemas.js';

/**
 * `T` with every object and array readonly. A client reads an answer, it does not change it; and
 * the server's values (the library's, deeply frozen) are checked against these.
 */
// A mapped type over an array or tuple type gives a readonly array or tuple of the same shape. The
// library's JSON types are readonly already and recursive: they are kept as they are (mapping
// them again makes comparisons of content parts too deep for the compiler).
export type DeepReadonly<T> = T extends object
  ? IsJsonContainer<T> extends true
    ? T
    : { readonly [K in keyof T]: DeepReadonly<T[K]> }
  : T;

/** Whether `T` is exactly `JsonObject` or `readonly JsonValue[]`. */
type IsJsonContainer<T> = [T] extends [JsonObject]
  ? [JsonObject] extends [T]
    ? true
    : false
  : [T] extends [readonly JsonValue[]]
    ? [readonly JsonValue[]] extends [T]
      ? true
      : false
    : false;

/** The body of a response of `schema`, as a client reads it. */
export type Answer<S extends z.ZodType> = DeepReadonly<z.output<S>>;

/** A stored message. */
export type Message = Answer<typeof messageSchema>;

/** Answer of `GET /sessions/{id}/messages`: messages, and the tokens of each. */
export type MessageRange = Answer<typeof messageRangeSchema>;

/** A row of the session list (also `GET /sessions/{id}/summary`). */
export type SessionSummary = Answer<typeof summarySchema>;

/** A page of `GET /sessions`. */
export type SessionPage = Answer<typeof listPageSchema>;

/** Who a request is: `GET /auth/session`, `POST /auth/session`. */
export type Who = Answer<typeof whoSchema>;

/** Answer of `GET /sessions/{id}/stats`. */
export type SessionStats = Answer<typeof sessionStatsSchema>;

/** Answer of `GET /sessions/{id}/timeline`. */
export type TokenTimeline = Answer<typeof timelineSchema>;

/** Answer of `GET /sessions/{id}/thread`: a LangGraph thread at one checkpoint (no `thread` for other sessions). */
export type SessionThread = Answer<typeof sessionThreadSchema>;
