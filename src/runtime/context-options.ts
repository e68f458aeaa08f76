/**
 * The `contextWindow` option of `Conversation` and `chatWithState`, checked and turned into the
 * `ContextPolicy` the tool loop fits its requests with; and the recommended setting of it.
 * @module
 */
import type { InvalidInputError } from '../errors.js';
import type { ModelWindow } from '../models/context-windows.js';
import type { TokenCounter } from '../tokens/counter.js';
import { ModelLimits } from './model-limits.js';
import type { ContextPolicy } from './request-fit.js';
import type { TurnCompactor } from './types.js';

/** The context window in full. */
export interface ContextWindowOptions {
  /** The messages' budget in tokens, or `'auto'`: the model's context window (table or `models`) minus room for the answer. */
  readonly tokens: number | 'auto';
  /**
   * The share of the budget a cut leaves: between cuts the window grows, with the prompt's prefix
   * unchanged (and so cached by the provider), until it reaches the budget. `1` cuts every turn to
   * the fullest window. @default 0.5
   */
  readonly lowMark?: number;
  /** Context windows of models the table lacks, or that differ from it, by model id. */
  readonly models?: Readonly<Record<string, ModelWindow>>;
  /**
   * What is learned of models' limits when a provider refuses a request, shared by the
   * conversations given the same `ModelLimits` (a server gives one per agent). @default one per conversation
   */
  readonly limits?: ModelLimits;
}

/** `contextWindow`: a budget in tokens, `'auto'`, or the options in full. */
export type ContextWindowOption = number | 'auto' | ContextWindowOptions;

const DEFAULT_LOW_MARK = 0.5;

function checkModels(value: unknown, invalid: (message: string) => InvalidInputError): Record<string, ModelWindow> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid('contextWindow.models must be an object of model ids to { contextTokens, maxOutputTokens }');
  const out: Record<string, ModelWindow> = Object.create(null) as Record<string, ModelWindow>;
  for (const [model, window] of Object.entries(value)) {
    const { contextTokens, maxOutputTokens } = (window ?? {}) as Partial<ModelWindow>;
    for (const [name, count] of [
      ['contextTokens', contextTokens],
      ['maxOutputTokens', maxOutputTokens],
    ] as const) {
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1)
        throw invalid(`contextWindow.models["${model.slice(0, 80)}"].${name} must be a positive integer`);
    }
    out[model] = { contextTokens: contextTokens as number, maxOutputTokens: maxOutputTokens as number };
  }
  return out;
}

/** Checks `option` and makes the policy of one conversation (or one `chatWithState` call). */
export function resolveContextPolicy(
  option: unknown,
  counter: TokenCounter,
  compactor: TurnCompactor | undefined,
  invalid: (message: string) => InvalidInputError,
): ContextPolicy {
  const full: Partial<ContextWindowOptions> | undefined =
    option === undefined
      ? undefined
      : typeof option === 'object' && option !== null && !Array.isArray(option)
        ? (option as Partial<ContextWindowOptions>)
        : { tokens: option as number | 'auto' };
  const tokens = full?.tokens;
  if (
    full !== undefined &&
    tokens !== 'auto' &&
    (typeof tokens !== 'number' || !Number.isSafeInteger(tokens) || tokens < 1)
  )
    throw invalid(`contextWindow must be a positive integer, 'auto' or { tokens }, not ${String(tokens)}`);
  const lowMark = full?.lowMark ?? DEFAULT_LOW_MARK;
  if (typeof lowMark !== 'number' || !(lowMark > 0) || lowMark > 1)
    throw invalid(`contextWindow.lowMark must be a number above 0 and at most 1, not ${String(lowMark)}`);
  const models = checkModels(full?.models, invalid);
  const limits = full?.limits ?? new ModelLimits();
  if (!(limits instanceof ModelLimits)) throw invalid('contextWindow.limits must be a ModelLimits');
  return {
    counter,
    ...(typeof tokens === 'number' ? { budget: tokens } : {}),
    ...(tokens === undefined ? {} : { tokens }),
    models,
    lowMark,
    limits,
    ...(compactor === undefined ? {} : { compactor }),
  };
}

/**
 * The recommended context: every request holds the newest whole turns that fit the model's own
 * window (the table of common models, or `models`) minus room for the answer, cut in steps so the
 * provider's prompt cache keeps hitting between cuts; a request the provider still refuses is
 * fitted and sent again. The stored session keeps every message: add a compactor when it should not.
 */
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
