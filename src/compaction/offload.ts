/**
 * `offload` (Coreason's VECTOR_STORE): keep the last `turns` turns and hand the older messages to
 * an archive (usually a vector store for later recall) before dropping them. If the archive
 * fails, nothing is dropped: the history comes back unchanged with the error.
 * @module
 */
import { CollaboratorError, InvalidInputError, errorMessage } from '../errors.js';
import type { Message } from '../message/message.js';
import { invalidOption, optionsObject, positiveInteger } from './options.js';
import { cutAt, prepareTurns, unchanged } from './report.js';
import { moreTurnsThan, windowCut } from './sliding-window.js';
import type { Archive, AsyncCompactor, CompactionInput, CompactionResult } from './types.js';

/** Options of `offload`. */
export interface OffloadOptions {
  /** Receives the dropped messages (awaited) before they are dropped. */
  archive: Archive;
  /** Turns kept in the history. */
  turns: number;
}

/** Checks an archive option: `MISSING_COLLABORATOR` when absent, `INVALID_ARGUMENT` when malformed. */
export function checkArchive(factory: string, archive: unknown): Archive {
  if (archive === undefined || archive === null) {
    throw new InvalidInputError(
      'MISSING_COLLABORATOR',
      `${factory} needs an archive: pass { archive: { archive(messages) { … } } }`,
      {
        details: { factory, option: 'archive' },
      },
    );
  }
  if (typeof archive !== 'object' || typeof (archive as Archive).archive !== 'function') {
    throw invalidOption(factory, 'archive', 'an object with an archive(messages) method', archive);
  }
  return archive as Archive;
}

/** Keeps the last `turns` turns and archives the older messages before dropping them. */
export function offload(options: OffloadOptions): AsyncCompactor {
  const name = 'offload';
  optionsObject(name, options);
  const archive = checkArchive(name, options.archive);
  const keep = positiveInteger(name, 'turns', options.turns);
  return Object.freeze({
    name,
    shouldCompact: (input: CompactionInput): boolean => moreTurnsThan(input, keep),
    async compact(input: CompactionInput): Promise<CompactionResult> {
      const { prepared, turns } = prepareTurns(input);
      const k = windowCut(turns, keep);
      if (k < 0) return unchanged(prepared.messages, name, prepared.total, true);
      const cut = turns.cuts[k] as number;
      const dropped: Message[] = [];
      for (let i = 0; i < cut; i++) if (turns.pinned[i] === 0) dropped.push(prepared.messages[i] as Message);
      if (dropped.length === 0) return unchanged(prepared.messages, name, prepared.total, true);
      try {
        await archive.archive(Object.freeze(dropped));
      } catch (error) {
        const failure = new CollaboratorError(
          'ARCHIVE_FAILED',
          `The archive failed, nothing was dropped: ${errorMessage(error)}`,
          {
            cause: error,
            details: { messages: dropped.length },
          },
        );
        return unchanged(prepared.messages, name, prepared.total, false, failure);
      }
      return cutAt(prepared, turns, k, name, true);
    },
  });
}
