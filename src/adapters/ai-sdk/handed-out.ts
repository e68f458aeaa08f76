/**
 * UI messages a chat store hands out (`loadChat`, `getChat`): deep-frozen, one object per stored
 * message, and recognised when they come back. A frozen object cannot have changed since it was
 * made, so a save given it back (the AI SDK's `onFinish` passes `originalMessages` on as the very
 * objects) takes it for the stored message it was made from without reading or comparing it: the
 * cost of a save follows what changed, not the length of the chat.
 * @module
 */
import { defineField } from '../../internal/define-field.js';
import type { JsonValue } from '../../message/schema.js';
import type { UiMessageJson } from './ui-json.js';

/** A handed-out object → the UI message it shows (weak: dropped with the object). */
const shown = new WeakMap<object, UiMessageJson>();
/** A UI message → its handed-out object, so every load of an unchanged message gives the same one. */
const objects = new WeakMap<UiMessageJson, object>();

/**
 * Freezes `value` and everything below it. Unlike `deepFreeze`, it walks into objects that are
 * frozen already: identity stands for content only if no level below can change, and a value
 * decoded from a store may hold a shallowly frozen object.
 */
function freezeAll(value: JsonValue): void {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    Object.freeze(next);
    for (const key of Object.keys(next)) pending.push((next as Record<string, unknown>)[key]);
  }
}

/** The UI message in the caller's `UIMessage` shape, deep-frozen: the same object for the same message. */
export function handOut(message: UiMessageJson): object {
  const known = objects.get(message);
  if (known !== undefined) return known;
  // Extra fields first, so that they cannot stand in for the known ones.
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(message.extra ?? {})) defineField(out, key, value);
  out['id'] = message.id;
  out['role'] = message.role;
  if (message.metadata !== undefined) out['metadata'] = message.metadata;
  out['parts'] = message.parts;
  freezeAll(out);
  shown.set(out, message);
  objects.set(message, out);
  return out;
}

/** The UI message `value` was handed out for (`handOut`), or `undefined` when it is not such an object. */
export function handedOut(value: unknown): UiMessageJson | undefined {
  return typeof value === 'object' && value !== null ? shown.get(value) : undefined;
}
