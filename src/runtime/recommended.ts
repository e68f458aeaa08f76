/**
 * The context settings to take without thinking about them: every request holds the newest whole
 * turns that fit the model's own context window (from the table of common models, or `models`),
 * minus room for the answer, cut in steps so the provider's prompt cache keeps hitting between
 * cuts. A request the provider still refuses is fitted and sent again. The stored session keeps
 * every message: add a compactor when it should not (see docs/compaction.md).
 * @module
 */
import type { ModelWindow } from '../models/context-windows.js';
import type { ContextWindowOptions } from './context-options.js';

/** What `recommendedContext` sets: spread it into `new Conversation({ … })` or `chatWithState`'s options. */
export interface RecommendedContext {
  readonly contextWindow: ContextWindowOptions;
}

/** The recommended `contextWindow`: `'auto'` with cuts to half the window; `models` adds or overrides models' windows. */
export function recommendedContext(
  options: { readonly models?: Readonly<Record<string, ModelWindow>> } = {},
): RecommendedContext {
  return {
    contextWindow: {
      tokens: 'auto',
      lowMark: 0.5,
      ...(options.models === undefined ? {} : { models: options.models }),
    },
  };
}
