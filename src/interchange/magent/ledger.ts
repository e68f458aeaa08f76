/**
 * Magent's v6 turn ledger (seed-formats.md §2.4) as drafts: each turn's user input, its tool items
 * as a call and its result, its reasoning and assistant messages, with their own ids and float
 * epoch times. `{}` stands for null in the ledger (quirk 10).
 * @module
 */
import type { MessageInput } from '../../message/message.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { TOOL_CALL_ID_PATTERN } from '../../message/schema.js';
import { compact, json, messageIdOr, type Draft } from '../build.js';
import { isObject } from '../json-text.js';
import { readEpochSeconds } from '../timestamps.js';

/** `value`, or undefined when the ledger wrote `{}` (or null) for "absent". */
export function present(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  return isObject(value) && Object.keys(value).length === 0 ? undefined : value;
}

const textOf = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/** What turns say beside their items, for session metadata. */
export interface LedgerRead {
  readonly drafts: Draft[];
  readonly turns: JsonValue[];
}

function timeOf(...values: unknown[]): string | undefined {
  for (const value of values) {
    const iso = readEpochSeconds(present(value));
    if (iso !== undefined) return iso;
  }
  return undefined;
}

/** The drafts of `turns` (a v6 `snapshot.turns`); `fallback` times what has no time of its own. */
export function ledgerDrafts(turns: readonly unknown[], sessionId: string, fallback: string): LedgerRead {
  const drafts: Draft[] = [];
  const kept: JsonValue[] = [];
  turns.forEach((raw, turnIndex) => {
    const turn = isObject(raw) ? raw : {};
    const turnId = typeof turn.id === 'string' ? turn.id : `${sessionId}.turn${turnIndex}`;
    const items = Array.isArray(turn.items) ? turn.items : [];
    const { items: _items, ...rest } = turn;
    kept.push(json(rest));
    const status = present(turn.status);
    const turnTime = timeOf(turn['started-at'], turn['queued-at']) ?? fallback;
    const compaction = isObject(turn.metadata) && present(turn.metadata.compaction) !== undefined;
    const tag = (extra: Record<string, JsonValue | undefined>): JsonObject =>
      compact({
        turnId,
        ...(status === 'completed' ? {} : { turnStatus: json(status ?? null) }),
        ...(compaction ? { compaction: true } : {}),
        ...extra,
      });
    const hasUserItem = items.some((item) => isObject(item) && item.type === 'message' && item.role === 'user');
    const input = present(turn.input);
    if (!hasUserItem && input !== undefined) {
      drafts.push({
        input: {
          id: messageIdOr(`${turnId}.input`, `${sessionId}.${drafts.length}`).id,
          role: 'user',
          content: textOf(input),
          timestamp: turnTime,
          metadata: { magent: tag({ fromTurnInput: true }) },
        },
        original: input,
      });
    }
    items.forEach((rawItem, itemIndex) => {
      const item = isObject(rawItem) ? rawItem : {};
      const id = messageIdOr(present(item.id), `${turnId}.${itemIndex}`);
      const at = timeOf(item['created-at'], item['updated-at']) ?? turnTime;
      const done = timeOf(item['completed-at'], item['updated-at']) ?? at;
      const extra = {
        itemStatus: json(present(item.status) ?? null),
        ...(present(item.metadata) === undefined ? {} : { metadata: json(item.metadata) }),
        ...(present(item.phase) === undefined ? {} : { phase: json(item.phase) }),
        ...(id.derived ? { idDerived: true } : {}),
      };
      const push = (input: MessageInput) => drafts.push({ input, original: rawItem });
      if (item.type === 'tool') {
        const callId = present(item['call-id']) ?? present(item.id);
        const name = present(item.name);
        const safeCall =
          typeof callId === 'string' && callId.length <= 256 && TOOL_CALL_ID_PATTERN.test(callId)
            ? callId
            : `${id.id}.call`;
        const error = present(item.error);
        push({
          id: `${id.id}.call`,
          role: 'assistant',
          content: '',
          toolCalls: [
            {
              id: safeCall,
              name: typeof name === 'string' && name.length > 0 && name.length <= 256 ? name : 'tool',
              arguments: JSON.stringify(present(item.input) ?? {}),
            },
          ],
          timestamp: at,
          metadata: { magent: tag({ itemId: id.id }) },
        });
        const output = present(item.output);
        push({
          id: id.id,
          role: 'tool',
          toolCallId: safeCall,
          ...(typeof name === 'string' && name.length > 0 && name.length <= 256 ? { name } : {}),
          content:
            output === undefined && error !== undefined ? textOf(error) : output === undefined ? '' : textOf(output),
          timestamp: done,
          metadata: { magent: tag({ ...extra, ...(error === undefined ? {} : { error: json(error) }) }) },
        });
        return;
      }
      const content = present(item.content);
      if (item.type === 'reasoning') {
        push({
          id: id.id,
          role: 'assistant',
          content: [{ type: 'reasoning', text: textOf(content ?? '') }],
          timestamp: at,
          metadata: { magent: tag(extra) },
        });
        return;
      }
      const role = item.role === 'user' || item.role === 'assistant' ? item.role : undefined;
      push({
        id: id.id,
        role: role ?? 'system',
        ...(role === undefined ? { category: 'context' as const } : {}),
        content: textOf(content ?? ''),
        timestamp: at,
        metadata: {
          magent: tag({
            ...extra,
            ...(role === undefined ? { type: json(item.type ?? null), role: json(item.role ?? null) } : {}),
          }),
        },
      });
    });
  });
  return { drafts, turns: kept };
}
