/**
 * Messages recall leaves out: those whose `metadata.recall` is `false`. The results of the memory
 * tools are marked so (`Tool.recall`): they repeat what memory holds — a recall's hits, a fact just
 * remembered — and indexing them would echo old hits, and keep a forgotten or superseded fact
 * recallable through the tool result that once stated it. An application marks any other message
 * it wants kept out of recall the same way.
 * @module
 */
import type { JsonObject } from '../message/schema.js';

/** The metadata of a message recall leaves out. */
export const NOT_RECALLED: Readonly<JsonObject> = Object.freeze({ recall: false });

/** True when recall leaves `message` out (its `metadata.recall` is `false`). */
export function isNotRecalled(message: { readonly metadata?: Readonly<JsonObject> }): boolean {
  return message.metadata?.['recall'] === false;
}
