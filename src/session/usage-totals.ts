/**
 * A session's measured usage and what it cost: the runtime keeps each model call's usage on the
 * reply it wrote (`metadata.usage`: `inputTokens`, `outputTokens`, `cachedInputTokens`,
 * `cacheWriteInputTokens`, `model`); `usageTotals` adds them up by model, `cachedShare` says how
 * much of the input the provider's cache served, and `costOf` prices them.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { Message } from '../message/message.js';

/** The model name of calls whose usage names none. */
export const UNKNOWN_MODEL = 'unknown';

/** The price entry that applies to every model without its own. */
export const DEFAULT_PRICE_KEY = '*';

/** Measured usage of some calls. */
export interface UsageCounts {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens read from the provider's cache (part of `inputTokens`). */
  readonly cachedInputTokens: number;
  /** Input tokens written to the provider's cache (part of `inputTokens`). */
  readonly cacheWriteInputTokens: number;
}

/** Usage of a history: all calls, and by model. */
export interface UsageTotals extends UsageCounts {
  readonly byModel: Readonly<Record<string, UsageCounts>>;
}

/** A model's price in currency units per million tokens. */
export interface Price {
  readonly input: number;
  readonly output: number;
  /** Cached input tokens, read from the cache (part of `inputTokens`). @default input */
  readonly cachedInput?: number;
  /** Input tokens written to the cache (part of `inputTokens`; Anthropic bills them above input). @default input */
  readonly cacheWriteInput?: number;
}

/** Prices by model name; `*` prices every model without its own. */
export interface Prices {
  /** The currency the prices are in. @default 'USD' */
  readonly currency?: string;
  readonly models: Readonly<Record<string, Price>>;
}

/** What a history's calls cost. */
export interface Cost {
  readonly currency: string;
  readonly total: number;
  readonly byModel: Readonly<Record<string, number>>;
  /** Models with usage but no price (their calls are not in `total`). */
  readonly unpriced: readonly string[];
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function zeroCounts(): Mutable<UsageCounts> {
  return { calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0 };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** Measured usage of one model call, as kept on the reply it wrote. */
export interface CallUsage {
  /** The model's name (`UNKNOWN_MODEL` when the usage names none). */
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteInputTokens: number;
}

/**
 * The usage the runtime kept on `message`: an assistant reply's `metadata.usage`, counts that are
 * not non-negative numbers read as 0; undefined for any other message or without an object there.
 */
export function messageUsage(message: Message): CallUsage | undefined {
  const usage = message.role === 'assistant' ? message.metadata.usage : undefined;
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return undefined;
  const fields = usage as Readonly<Record<string, unknown>>;
  return {
    model: typeof fields.model === 'string' && fields.model !== '' ? fields.model : UNKNOWN_MODEL,
    inputTokens: count(fields.inputTokens),
    outputTokens: count(fields.outputTokens),
    cachedInputTokens: count(fields.cachedInputTokens),
    cacheWriteInputTokens: count(fields.cacheWriteInputTokens),
  };
}

/** Adds up the usage the runtime kept on the replies of `history`. */
export function usageTotals(history: { readonly length: number; at(index: number): Message | undefined }): UsageTotals {
  // A null-prototype map: model names come from providers and may be "__proto__".
  const byModel: Record<string, Mutable<UsageCounts>> = Object.create(null) as Record<string, never>;
  const all = zeroCounts();
  for (let i = 0; i < history.length; i++) {
    const usage = messageUsage(history.at(i) as Message);
    if (usage === undefined) continue;
    const entry = (byModel[usage.model] ??= zeroCounts());
    for (const target of [entry, all]) {
      target.calls += 1;
      target.inputTokens += usage.inputTokens;
      target.outputTokens += usage.outputTokens;
      target.cachedInputTokens += usage.cachedInputTokens;
      target.cacheWriteInputTokens += usage.cacheWriteInputTokens;
    }
  }
  return { ...all, byModel: { ...byModel } };
}

/**
 * The share of input tokens the provider's cache served (cache reads / input tokens, 0 to 1), or
 * undefined without input. What prompt caching saves follows from it: cached input costs a tenth of
 * uncached at OpenAI and Anthropic.
 */
export function cachedShare(counts: Pick<UsageCounts, 'inputTokens' | 'cachedInputTokens'>): number | undefined {
  if (!(counts.inputTokens > 0)) return undefined;
  return Math.min(1, Math.max(0, counts.cachedInputTokens / counts.inputTokens));
}

/**
 * What `totals` cost at `prices`: cache reads at `cachedInput`, cache writes at `cacheWriteInput`
 * (both default to `input`), the rest of the input at `input`, output at `output`.
 */
export function costOf(totals: UsageTotals, prices: Prices): Cost {
  const byModel: Record<string, number> = Object.create(null) as Record<string, number>;
  const unpriced: string[] = [];
  let sum = 0;
  for (const [model, usage] of Object.entries(totals.byModel)) {
    const price = Object.hasOwn(prices.models, model) ? prices.models[model] : prices.models[DEFAULT_PRICE_KEY];
    if (price === undefined) {
      unpriced.push(model);
      continue;
    }
    // Counts from a provider are trusted only as far as they fit inside the input they are part of.
    const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
    const written = Math.min(usage.cacheWriteInputTokens, usage.inputTokens - cached);
    const cost =
      ((usage.inputTokens - cached - written) * price.input +
        cached * (price.cachedInput ?? price.input) +
        written * (price.cacheWriteInput ?? price.input) +
        usage.outputTokens * price.output) /
      1_000_000;
    byModel[model] = cost;
    sum += cost;
  }
  return { currency: prices.currency ?? 'USD', total: sum, byModel: { ...byModel }, unpriced };
}

function invalidPrices(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `Invalid prices: ${message}`);
}

/**
 * Checks prices given as JSON (`{ "currency": "USD", "models": { "gpt-4.1-mini": { "input": 0.4,
 * "output": 1.6, "cachedInput": 0.1 } } }`, `cacheWriteInput` too): `INVALID_ARGUMENT` naming the
 * first problem.
 */
export function checkPrices(value: unknown): Prices {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidPrices('not an object');
  const { currency, models, ...rest } = value as Record<string, unknown>;
  const unknownKey = Object.keys(rest)[0];
  if (unknownKey !== undefined) throw invalidPrices(`unknown field ${JSON.stringify(unknownKey)}`);
  if (currency !== undefined && (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)))
    throw invalidPrices('currency must be a three-letter code such as USD');
  if (typeof models !== 'object' || models === null || Array.isArray(models))
    throw invalidPrices('models must be an object of prices by model name');
  const checked: Record<string, Price> = Object.create(null) as Record<string, Price>;
  for (const [model, price] of Object.entries(models as Record<string, unknown>)) {
    if (typeof price !== 'object' || price === null || Array.isArray(price))
      throw invalidPrices(`the price of ${JSON.stringify(model)} is not an object`);
    const { input, output, cachedInput, cacheWriteInput, ...extra } = price as Record<string, unknown>;
    const field = Object.keys(extra)[0];
    if (field !== undefined) throw invalidPrices(`unknown field ${JSON.stringify(field)} in ${JSON.stringify(model)}`);
    const amount = (name: string, amountValue: unknown): number => {
      if (typeof amountValue !== 'number' || !Number.isFinite(amountValue) || amountValue < 0)
        throw invalidPrices(`${model}.${name} must be a non-negative number (per million tokens)`);
      return amountValue;
    };
    checked[model] = {
      input: amount('input', input),
      output: amount('output', output),
      ...(cachedInput === undefined ? {} : { cachedInput: amount('cachedInput', cachedInput) }),
      ...(cacheWriteInput === undefined ? {} : { cacheWriteInput: amount('cacheWriteInput', cacheWriteInput) }),
    };
  }
  return { ...(currency === undefined ? {} : { currency }), models: { ...checked } };
}
