/**
 * `composite` (goaitools' CompositeCompactor): several compactors in order, each run when its own
 * trigger fires on the history the previous ones left, with one merged report. It completes
 * synchronously when every part does.
 * @module
 */
import type { ChatstateError } from '../errors.js';
import type { Message } from '../message/message.js';
import { invalidOption } from './options.js';
import { changed, prepare, unchanged } from './report.js';
import { checkStrategy } from './split.js';
import { checkTrigger } from './triggers.js';
import type { CompactionInput, CompactionResult, Compactor, SyncCompactor } from './types.js';

/** The running merge of the parts' reports. */
class Merge {
  messages: readonly Message[];
  readonly ran: string[] = [];
  tokensBefore: number | undefined;
  removedCount = 0;
  removedTokens = 0;
  firstId: string | undefined;
  lastId: string | undefined;
  modifiedCount = 0;
  tokensSaved = 0;
  readonly added: Message[] = [];
  addedTokens = 0;
  reachedTarget = true;
  compacted = false;
  error: ChatstateError | undefined;

  constructor(readonly input: CompactionInput) {
    this.messages = input.messages;
  }

  /** The input of the next part: measured usage only applies while the history is unchanged. */
  next(): CompactionInput {
    if (!this.compacted) return this.input;
    return {
      messages: this.messages,
      counter: this.input.counter,
      ...(this.input.signal === undefined ? {} : { signal: this.input.signal }),
    };
  }

  add(name: string, result: CompactionResult): void {
    this.ran.push(name);
    this.tokensBefore ??= result.tokensBefore;
    this.reachedTarget &&= result.reachedTarget;
    if (result.error !== undefined) this.error ??= result.error;
    if (!result.compacted) return;
    this.compacted = true;
    this.messages = result.messages;
    this.removedCount += result.removed.count;
    this.removedTokens += result.removed.tokens;
    if (result.removed.firstId !== undefined) this.firstId ??= result.removed.firstId;
    if (result.removed.lastId !== undefined) this.lastId = result.removed.lastId;
    this.modifiedCount += result.modified.count;
    this.tokensSaved += result.modified.tokensSaved;
    this.added.push(...result.added);
    // What a part added, from its own (consistent) arithmetic.
    this.addedTokens += result.tokensAfter - result.tokensBefore + result.removed.tokens + result.modified.tokensSaved;
  }

  finish(name: string): CompactionResult {
    const strategy = this.ran.length > 0 ? this.ran.join('+') : name;
    if (!this.compacted) {
      const tokens = this.tokensBefore ?? prepare(this.input).total;
      return unchanged(this.input.messages, strategy, tokens, this.reachedTarget, this.error);
    }
    return changed({
      messages: Object.isFrozen(this.messages) ? (this.messages as Message[]) : this.messages.slice(),
      strategy,
      removed: { count: this.removedCount, tokens: this.removedTokens, firstId: this.firstId, lastId: this.lastId },
      modified: { count: this.modifiedCount, tokensSaved: this.tokensSaved },
      added: this.added,
      addedTokens: this.addedTokens,
      tokensBefore: this.tokensBefore ?? 0,
      reachedTarget: this.reachedTarget,
      ...(this.error === undefined ? {} : { error: this.error }),
    });
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<CompactionResult> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

function partName(part: Compactor, index: number): string {
  return typeof part.name === 'string' && part.name.length > 0 ? part.name : `part${index}`;
}

/** Runs each compactor whose trigger fires, in order, on the running result; merges the reports. */
export function composite(...compactors: SyncCompactor[]): SyncCompactor;
export function composite(...compactors: Compactor[]): Compactor;
export function composite(...compactors: Compactor[]): Compactor {
  const factory = 'composite';
  if (compactors.length === 0) throw invalidOption(factory, 'compactors', 'at least one compactor', undefined);
  const parts: readonly Compactor[] = Object.freeze(
    compactors.map((part, index) => {
      checkTrigger(factory, `compactor ${index}`, part);
      checkStrategy(factory, `compactor ${index}`, part);
      return part;
    }),
  );
  const name = `composite(${parts.map(partName).join(',')})`;

  function run(merge: Merge, from: number): CompactionResult | Promise<CompactionResult> {
    for (let index = from; index < parts.length; index++) {
      const part = parts[index] as Compactor;
      const input = merge.next();
      if (!part.shouldCompact(input)) continue;
      const outcome = part.compact(input);
      if (isPromiseLike(outcome)) {
        return Promise.resolve(outcome).then((result) => {
          merge.add(partName(part, index), result);
          return run(merge, index + 1);
        });
      }
      merge.add(partName(part, index), outcome);
    }
    return merge.finish(name);
  }

  return Object.freeze({
    name,
    shouldCompact: (input: CompactionInput): boolean => parts.some((part) => part.shouldCompact(input)),
    compact: (input: CompactionInput): CompactionResult | Promise<CompactionResult> => run(new Merge(input), 0),
  });
}
