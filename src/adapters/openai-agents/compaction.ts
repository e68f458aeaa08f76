/**
 * Compaction for the session: one of chatstate's tool-safe compactors (a function call never
 * loses its result, system messages stay, the latest turn stays) run over the stored history
 * instead of a hosted `responses.compact` call. Messages the compactor rewrote (a shortened tool
 * output) forget the originals kept to rebuild their items, so their items say what they now say.
 * @module
 */
import type { CompactionResult, Strategy, Trigger } from '../../compaction/types.js';
import { withoutKeptContent } from '../../interchange/openai-agents/items.js';
import type { Message } from '../../message/message.js';
import type { TokenCounter } from '../../tokens/counter.js';

/** When and how the session compacts (`runCompaction`, which the runner calls after each turn). */
export interface SessionCompactionOptions {
  /**
   * How: any chatstate strategy or compactor (`compaction.slidingWindow({ turns })`,
   * `compaction.tokenLimit({ max, target })`, `compaction.summarize(…)`, …).
   */
  readonly strategy: Strategy;
  /**
   * When: e.g. `triggers.tokenCount(8000)` or `triggers.messageCount(200)`.
   * @default the strategy's own `shouldCompact` when it is a compactor, otherwise every turn
   */
  readonly trigger?: Trigger;
  /** Counter for token budgets and triggers. @default the estimate (about 4 characters a token) */
  readonly counter?: TokenCounter;
  /** Told each compaction that changed the history (e.g. to log it). */
  readonly onCompaction?: (result: CompactionResult) => void;
}

/** `options` as one compactor whose rewritten messages forget their kept originals. */
export function sessionCompactor(options: SessionCompactionOptions): Strategy & Trigger {
  const { strategy } = options;
  const trigger: Trigger | undefined =
    options.trigger ??
    (typeof (strategy as Partial<Trigger>).shouldCompact === 'function' ? (strategy as Strategy & Trigger) : undefined);
  const settle = (input: readonly Message[], result: CompactionResult): CompactionResult => {
    if (!result.compacted) return result;
    const before = new Set(input);
    return {
      ...result,
      messages: result.messages.map((message) => (before.has(message) ? message : withoutKeptContent(message))),
    };
  };
  return {
    name: strategy.name,
    shouldCompact: (input) => (trigger === undefined ? true : trigger.shouldCompact(input)),
    compact: async (input) => settle(input.messages, await strategy.compact(input)),
  };
}
