/**
 * What a conversation has learned about each model's context: the limit a provider stated when it
 * refused a request as too long (it replaces the configured or tabled one), and how the
 * provider's token count compares with chatstate's counter (the usage of earlier calls), so a
 * budget in provider tokens can be turned into counter units before the next request is built.
 * @module
 */
import type { ChatstateError } from '../errors.js';
import { modelContextWindow, type ModelWindow } from '../models/context-windows.js';

/** The least room kept for the answer, and its share of the window when the model's largest answer is bigger. */
const MIN_ANSWER_ROOM = 256;
const ANSWER_SHARE = 0.15;
/** How far a learned ratio may move per observation: one odd usage report must not swing the budget. */
const RATIO_RANGE = { min: 0.5, max: 4 };
/** The ratio assumed before any call was measured: counters estimate a little low, and a refused call costs a round trip. */
const FIRST_RATIO = 1.1;
/** When a provider refuses without saying its limit: the next request aims this far below what was refused. */
const SHRINK_WITHOUT_LIMIT = 0.7;

/** How a limit came to be known. */
export type LimitSource = 'configured' | 'table' | 'provider';

/** A model's context as the conversation knows it now. */
export interface KnownLimit {
  /** Prompt plus answer, in the provider's tokens. */
  readonly contextTokens: number;
  /** Kept free for the answer, in the provider's tokens. */
  readonly answerTokens: number;
  readonly source: LimitSource;
}

interface Learned {
  limit?: number;
  /** Provider tokens per counted token, learned from usage; undefined before the first measured call. */
  ratio?: number;
}

/** The room for the answer within a window of `contextTokens` whose model answers at most `maxOutputTokens`. */
export function answerRoom(contextTokens: number, maxOutputTokens: number | undefined): number {
  const share = Math.floor(contextTokens * ANSWER_SHARE);
  return Math.max(Math.min(MIN_ANSWER_ROOM, share), Math.min(maxOutputTokens ?? share, share));
}

/**
 * What is learned of the models requests go to: the limit each provider stated, and its count
 * against the counter. One per conversation by default; give the same one to several (a server
 * gives one per agent) so that what one turn learned spares the next its refused call.
 */
export class ModelLimits {
  private readonly learned = new Map<string, Learned>();

  /**
   * The limit requests to `model` must fit, or undefined while none is known: what its provider
   * stated, else with `configured` `'auto'` its window in the table (or `overrides`). A configured
   * number budgets the messages itself and gives no limit here.
   */
  limit(
    model: string,
    configured: 'auto' | number | undefined,
    overrides: Readonly<Record<string, ModelWindow>> = {},
  ): KnownLimit | undefined {
    const stated = this.learned.get(model)?.limit;
    const window = modelContextWindow(model, overrides);
    if (stated !== undefined)
      return { contextTokens: stated, answerTokens: answerRoom(stated, window?.maxOutputTokens), source: 'provider' };
    if (configured === 'auto' && window !== undefined)
      return {
        contextTokens: window.contextTokens,
        answerTokens: answerRoom(window.contextTokens, window.maxOutputTokens),
        source: 'table',
      };
    return undefined;
  }

  /** Provider tokens per counted token for `model` (a cautious guess before the first measured call). */
  ratio(model: string): number {
    return this.learned.get(model)?.ratio ?? FIRST_RATIO;
  }

  /** Learns from a call's usage: the provider counted `providerTokens` for a prompt the counter put at `countedTokens`. */
  observeUsage(model: string, countedTokens: number, providerTokens: number): void {
    if (!(countedTokens > 0) || !(providerTokens > 0)) return;
    const observed = clamp(providerTokens / countedTokens);
    const entry = this.entry(model);
    // Lean to the larger: an estimate that is too low costs a refused call, one too high a little room.
    entry.ratio = entry.ratio === undefined ? observed : Math.max(observed, 0.7 * entry.ratio + 0.3 * observed);
  }

  /**
   * Learns from a `CONTEXT_OVERFLOW` for a prompt the counter put at `countedTokens`: the limit the
   * provider stated (or, when it stated none, a lower guess) and the ratio its count implies.
   */
  observeOverflow(model: string, error: ChatstateError, countedTokens: number): void {
    const entry = this.entry(model);
    const limit = positive(error.details['limitTokens']);
    const requested = positive(error.details['requestedTokens']);
    if (requested !== undefined && countedTokens > 0) {
      const observed = clamp(requested / countedTokens);
      entry.ratio = Math.max(observed, entry.ratio ?? observed);
    }
    if (limit !== undefined) {
      entry.limit = limit;
      return;
    }
    // No figure: aim below what was refused, in provider tokens, and lower again if refused again.
    const refused = requested ?? Math.ceil(countedTokens * this.ratio(model));
    const guess = Math.max(1, Math.floor(refused * SHRINK_WITHOUT_LIMIT));
    entry.limit = entry.limit === undefined ? guess : Math.min(entry.limit, guess);
  }

  private entry(model: string): Learned {
    let entry = this.learned.get(model);
    if (entry === undefined) {
      entry = {};
      this.learned.set(model, entry);
    }
    return entry;
  }
}

function clamp(ratio: number): number {
  return Math.min(RATIO_RANGE.max, Math.max(RATIO_RANGE.min, ratio));
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
