/**
 * The memory tools get in `chatWithState` when the caller gives none: there is no store behind an
 * opaque state, so only what needs none works — `history` over the state's messages and `temp`
 * values for the call. Everything else says what to pass instead of pretending to store.
 * @module
 */
import { MAX_HISTORY_LIMIT, checkInteger, checkKey, checkScope, checkValue } from '../active-memory/checks.js';
import type {
  GetValueOptions,
  HistoryOptions,
  HistoryPage,
  RecallHit,
  SessionHandle,
  StoreValueOptions,
} from '../active-memory/types.js';
import type { WorkingMemoryVersion } from '../active-memory/working-memory.js';
import { deepFreeze } from '../freeze.js';
import { InvalidInputError } from '../errors.js';
import type { Message } from '../message/message.js';
import type { JsonValue } from '../message/schema.js';

function noStore(what: string): InvalidInputError {
  return new InvalidInputError(
    'MISSING_COLLABORATOR',
    `chatWithState keeps no store, so ${what} is not available: pass options.memory (e.g. createSessionHandle over a store)`,
  );
}

/**
 * A handle over `history` (the state's messages and this call's input; positions 1, 2, … serve as
 * sequence numbers) with `temp` values only.
 */
export function detachedMemory(sessionId: string, history: readonly Message[]): SessionHandle {
  const temp = new Map<string, JsonValue>();
  return Object.freeze({
    sessionId,
    userId: undefined,
    agentId: undefined,
    async history(options: HistoryOptions = {}): Promise<HistoryPage> {
      const messages = history;
      const limit = checkInteger(options.limit, 'limit', 1, MAX_HISTORY_LIMIT, 50);
      // Position i (0-based) has sequence number i + 1: `before` is exclusive, as for stored sessions.
      const end = Math.min(
        messages.length,
        checkInteger(options.before, 'before', 0, Number.MAX_SAFE_INTEGER, messages.length + 1) - 1,
      );
      const start = Math.max(0, end - limit);
      return Object.freeze({
        messages: Object.freeze(messages.slice(start, end)),
        ...(start > 0 ? { nextBefore: start + 1 } : {}),
      });
    },
    async store(key: string, value: JsonValue | undefined, options: StoreValueOptions = {}): Promise<void> {
      const scope = checkScope(options.scope);
      const checked = checkKey(key);
      if (scope !== 'temp') throw noStore(`the ${scope} scope`);
      if (value === undefined) temp.delete(checked);
      else temp.set(checked, checkValue(checked, value));
    },
    async get<T extends JsonValue = JsonValue>(key: string, options: GetValueOptions<T> = {}): Promise<T | undefined> {
      const scope = checkScope(options.scope);
      const checked = checkKey(key);
      if (scope !== 'temp') throw noStore(`the ${scope} scope`);
      const value = temp.get(checked);
      return value === undefined ? options.default : (deepFreeze(value) as T);
    },
    async recall(): Promise<RecallHit[]> {
      throw noStore('recall');
    },
    async remember(): Promise<RecallHit> {
      throw noStore('remember');
    },
    async forget(): Promise<void> {
      throw noStore('forget');
    },
    async readWorkingMemory(): Promise<WorkingMemoryVersion> {
      throw noStore('working memory');
    },
    async updateWorkingMemory(): Promise<WorkingMemoryVersion> {
      throw noStore('working memory');
    },
  });
}
