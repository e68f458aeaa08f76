/**
 * Recovery notices in the session (Penguin's design): a store that repaired a damaged session
 * keeps a `RecoveryNotice` with its head; the core then puts it into the session itself — in
 * `metadata.recovery` and as a `context` message with the notice's id at the point where the
 * session resumed — so that a loss of acknowledged data is seen by the application, the manager
 * (`recovered` events), `list`, `chatstate verify`, and the model.
 * @module
 */
import { Message } from '../message/message.js';
import type { JsonObject, JsonValue } from '../message/schema.js';
import type { RecoveryNotice } from './session-store-types.js';

/** The metadata key listing a session's recovery notices. */
export const RECOVERY_KEY = 'recovery';

const KINDS: ReadonlySet<string> = new Set(['restored-from-backup', 'journal-damaged', 'unreadable']);

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** True for a well-formed notice (they come back from stored metadata and heads). */
export function isRecoveryNotice(value: unknown): value is RecoveryNotice {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const notice = value as Record<string, unknown>;
  const lost = notice.lost as Record<string, unknown> | undefined;
  return (
    typeof notice.id === 'string' &&
    typeof notice.at === 'string' &&
    typeof notice.kind === 'string' &&
    KINDS.has(notice.kind) &&
    typeof notice.reason === 'string' &&
    Array.isArray(notice.keptAside) &&
    notice.keptAside.every((file) => typeof file === 'string') &&
    (lost === undefined ||
      (typeof lost === 'object' &&
        lost !== null &&
        isCount(lost.fromSeq) &&
        isCount(lost.toSeq) &&
        isCount(lost.fromVersion) &&
        isCount(lost.toVersion)))
  );
}

/** The notices listed in a session's metadata. */
export function noticesOf(metadata: JsonObject): RecoveryNotice[] {
  const listed = metadata[RECOVERY_KEY];
  return Array.isArray(listed) ? listed.filter(isRecoveryNotice) : [];
}

/** The notices of `stored` that `metadata` does not list yet. */
export function unlisted(stored: readonly RecoveryNotice[] | undefined, metadata: JsonObject): RecoveryNotice[] {
  if (stored === undefined || stored.length === 0) return [];
  const listed = new Set(noticesOf(metadata).map((notice) => notice.id));
  return stored.filter((notice) => isRecoveryNotice(notice) && !listed.has(notice.id));
}

/** `metadata` with `notices` added to its recovery list. */
export function withNotices(metadata: JsonObject, notices: readonly RecoveryNotice[]): JsonObject {
  if (notices.length === 0) return metadata;
  const listed = Array.isArray(metadata[RECOVERY_KEY]) ? (metadata[RECOVERY_KEY] as JsonValue[]) : [];
  return { ...metadata, [RECOVERY_KEY]: [...listed, ...(notices as unknown as JsonValue[])] };
}

/** What a notice of session `sessionId` says, for people and for the model. */
export function describeNotice(notice: RecoveryNotice, sessionId: string): string {
  const aside = notice.keptAside.length === 0 ? '' : ` (${notice.keptAside.join(', ')})`;
  if (notice.kind === 'unreadable')
    return `Session ${sessionId} could not be read (${notice.reason}). Its files were kept aside${aside}; this session starts over in its place.`;
  const lost = notice.lost;
  const what =
    lost === undefined
      ? 'Some saved messages may have been lost.'
      : lost.toSeq >= lost.fromSeq
        ? `Saved messages ${lost.fromSeq}–${lost.toSeq} (versions ${lost.fromVersion}–${lost.toVersion}) were lost; the conversation continues after the gap.`
        : `Changes of versions ${lost.fromVersion}–${lost.toVersion} were lost.`;
  const kept = notice.keptAside.length === 0 ? '' : ` The damaged files were kept aside${aside}.`;
  return `Recovery notice: the stored session ${sessionId} was damaged and repaired (${notice.reason}). ${what}${kept}`;
}

/** The `context` message that tells a notice of session `sessionId` in the session. */
export function noticeMessage(notice: RecoveryNotice, sessionId: string): Message {
  return Message.context(describeNotice(notice, sessionId), { id: notice.id, timestamp: notice.at });
}
