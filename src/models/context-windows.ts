/**
 * The context window and the output limit of common OpenAI, Anthropic and Gemini models, so a
 * caller can size a request without looking them up (`contextWindow: 'auto'`).
 *
 * Figures from the providers' model pages as published in 2026, read on 2026-11-29:
 * developers.openai.com/api/docs/models/<id>, platform.claude.com/docs/en/about-claude/models/overview
 * (and its legacy models table), ai.google.dev/gemini-api/docs/models/<id>. A window here is the
 * default one: Anthropic's 1M-token beta for Sonnet 4 and 4.5 is opt-in per request and not counted.
 * For Gemini the figure is the input limit, which Google calls the context window (its output has
 * a limit of its own); taking room for the answer out of it, as callers do, only errs on the safe side.
 * @module
 */
import { InvalidInputError } from '../errors.js';

/** What a model takes: its context window and the most tokens it writes in one answer. */
export interface ModelWindow {
  /** The context window in tokens: prompt and answer together (for Gemini: the prompt). */
  readonly contextTokens: number;
  /** The most output tokens the model writes in one answer (reasoning included). */
  readonly maxOutputTokens: number;
}

function window(contextTokens: number, maxOutputTokens: number): ModelWindow {
  return Object.freeze({ contextTokens, maxOutputTokens });
}

const GPT_4_TURBO = window(128_000, 4_096);
const GPT_4O = window(128_000, 16_384);
const GPT_4_1 = window(1_047_576, 32_768);
const GPT_5 = window(400_000, 128_000);
const O_SERIES = window(200_000, 100_000);
const CLAUDE_3 = window(200_000, 4_096);
const CLAUDE_3_5 = window(200_000, 8_192);
const CLAUDE_64K = window(200_000, 64_000);
const CLAUDE_OPUS_4 = window(200_000, 32_000);
const GEMINI_1M_8K = window(1_048_576, 8_192);
const GEMINI_2_5 = window(1_048_576, 65_536);

/** The table, by model id without a version suffix. */
const WINDOWS: ReadonlyMap<string, ModelWindow> = new Map([
  // OpenAI
  ['gpt-3.5-turbo', window(16_385, 4_096)],
  ['gpt-4', window(8_192, 8_192)],
  ['gpt-4-turbo', GPT_4_TURBO],
  ['gpt-4-1106-preview', GPT_4_TURBO], // GPT-4 Turbo's previews, not GPT-4's 8k
  ['gpt-4-0125-preview', GPT_4_TURBO],
  ['gpt-4o', GPT_4O],
  ['gpt-4o-mini', GPT_4O],
  ['gpt-4.1', GPT_4_1],
  ['gpt-4.1-mini', GPT_4_1],
  ['gpt-4.1-nano', GPT_4_1],
  ['gpt-5', GPT_5],
  ['gpt-5-mini', GPT_5],
  ['gpt-5-nano', GPT_5],
  ['o1', O_SERIES],
  ['o1-mini', window(128_000, 65_536)],
  ['o1-preview', window(128_000, 32_768)],
  ['o3', O_SERIES],
  ['o3-mini', O_SERIES],
  ['o4-mini', O_SERIES],
  // Anthropic
  ['claude-3-haiku', CLAUDE_3],
  ['claude-3-sonnet', CLAUDE_3],
  ['claude-3-opus', CLAUDE_3],
  ['claude-3-5-haiku', CLAUDE_3_5],
  ['claude-3-5-sonnet', CLAUDE_3_5],
  ['claude-3-7-sonnet', CLAUDE_64K],
  ['claude-sonnet-4', CLAUDE_64K],
  ['claude-opus-4', CLAUDE_OPUS_4],
  ['claude-opus-4-1', CLAUDE_OPUS_4],
  ['claude-sonnet-4-5', CLAUDE_64K],
  ['claude-haiku-4-5', CLAUDE_64K],
  ['claude-opus-4-5', CLAUDE_64K],
  // Gemini
  ['gemini-1.5-pro', window(2_097_152, 8_192)],
  ['gemini-1.5-flash', GEMINI_1M_8K],
  ['gemini-1.5-flash-8b', GEMINI_1M_8K],
  ['gemini-2.0-flash', GEMINI_1M_8K],
  ['gemini-2.0-flash-lite', GEMINI_1M_8K],
  ['gemini-2.5-pro', GEMINI_2_5],
  ['gemini-2.5-flash', GEMINI_2_5],
  ['gemini-2.5-flash-lite', GEMINI_2_5],
]);

// What may follow a known id in a dated or pinned id of the same model: a date (`-2024-08-06`,
// `-20250514`), a snapshot number (`-0613`, `-001`), `-latest`, a dated `-preview`/`-exp`. Nothing
// else, so a newer model that shares a prefix (`claude-sonnet-4-6`, `gpt-4o-mini` beside `gpt-4o`,
// `gemini-2.5-flash-image`) resolves to nothing rather than to another model's figures.
const VERSION_SUFFIX = /^-(?:\d{4}-\d{2}-\d{2}|\d{3,8}|latest|(?:preview|exp)(?:-\d{2}-\d{2}|-\d{2}-\d{4}|-\d{4})?)$/;

/** The entry of `table` for `id`: its own, else the one of the longest known id that `id` pins a version of. */
function lookUp<T>(table: ReadonlyMap<string, T>, id: string): T | undefined {
  if (table.has(id)) return table.get(id);
  for (let end = id.lastIndexOf('-'); end > 0; end = id.lastIndexOf('-', end - 1)) {
    const key = id.slice(0, end);
    if (table.has(key) && VERSION_SUFFIX.test(id.slice(end))) return table.get(key);
  }
  return undefined;
}

function checkOverride(id: string, value: unknown): ModelWindow {
  const { contextTokens, maxOutputTokens } = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const positive = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0;
  if (!positive(contextTokens) || !positive(maxOutputTokens))
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `the context window of ${JSON.stringify(id)} needs contextTokens and maxOutputTokens as positive integers`,
    );
  return window(contextTokens, maxOutputTokens);
}

/**
 * The context window and output limit of `model` (`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`,
 * `models/gemini-2.5-pro`, a gateway's `openai/gpt-4o`), or `undefined` for a model the table does
 * not know. `overrides`, by model id, win over the table and are matched the same way.
 */
export function modelContextWindow(
  model: string,
  overrides?: Readonly<Record<string, ModelWindow>>,
): ModelWindow | undefined {
  if (typeof model !== 'string') return undefined;
  // `models/…` (Gemini's REST names) and `provider/…` (gateway ids) name the same model.
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  if (overrides !== undefined) {
    // Own enumerable keys only (`Object.entries`), so an id such as `constructor` never reads the prototype.
    const own = new Map(Object.entries(overrides).map(([key, value]) => [key.toLowerCase(), [key, value] as const]));
    const found = lookUp(own, id);
    if (found !== undefined) return checkOverride(...found);
  }
  return lookUp(WINDOWS, id);
}
