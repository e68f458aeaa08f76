/**
 * Published list prices of a few common models, for an estimated cost (`costOf(totals,
 * PUBLISHED_PRICES)`) in a benchmark or a report. Nothing uses them unless asked: prices change,
 * differ by contract, region and tier (batch, priority, long context), and a wrong default would
 * print a confident wrong bill. Pass your own `Prices` for real accounting.
 *
 * USD per million tokens, standard tier, short prompts; collected 2026-11-29 from:
 * - OpenAI: gpt-4o and gpt-4o-mini uncached / cached / output from "Prompt Caching in the API"
 *   (openai.com/index/api-prompt-caching, 2024-10-01); gpt-4.1 input and output from OpenAI's
 *   pricing page as cited in March 2026, its cached input (a 75% discount) from the GPT-4.1 launch.
 *   OpenAI charges nothing extra for writing these models' cache: writes cost the input price.
 * - Anthropic: docs.anthropic.com/en/docs/about-claude/pricing ("5m cache writes", "cache hits &
 *   refreshes"); 1-hour cache writes cost more (Sonnet 4: 6, Haiku 3.5: 1.6) and are not modelled.
 * - Google: gemini-2.5-flash input and output from ai.google.dev/gemini-api/docs/pricing as cited
 *   in 2026 (text, image and video input); cached input 0.075 as reported in May 2026. Implicit
 *   caching has no write charge; explicit caches' hourly storage is not modelled.
 *
 * Model names are the ids providers answer with (`metadata.usage.model`): aliases and the dated
 * snapshots that share their price.
 * @module
 */
import type { Price, Prices } from './usage-totals.js';

/** One price and the model ids it applies to. */
const TABLE: ReadonlyArray<readonly [readonly string[], Price]> = [
  [['gpt-4.1', 'gpt-4.1-2025-04-14'], { input: 2, cachedInput: 0.5, cacheWriteInput: 2, output: 8 }],
  [
    ['gpt-4o', 'gpt-4o-2024-08-06', 'gpt-4o-2024-11-20'],
    { input: 2.5, cachedInput: 1.25, cacheWriteInput: 2.5, output: 10 },
  ],
  [['gpt-4o-mini', 'gpt-4o-mini-2024-07-18'], { input: 0.15, cachedInput: 0.075, cacheWriteInput: 0.15, output: 0.6 }],
  [
    ['claude-sonnet-4', 'claude-sonnet-4-0', 'claude-sonnet-4-20250514'],
    { input: 3, cachedInput: 0.3, cacheWriteInput: 3.75, output: 15 },
  ],
  [
    ['claude-haiku-3.5', 'claude-3-5-haiku-latest', 'claude-3-5-haiku-20241022'],
    { input: 0.8, cachedInput: 0.08, cacheWriteInput: 1, output: 4 },
  ],
  [['gemini-2.5-flash'], { input: 0.3, cachedInput: 0.075, cacheWriteInput: 0.3, output: 2.5 }],
];

/** Published list prices (USD per million tokens, dated in this module's header) by model id; opt-in only. */
export const PUBLISHED_PRICES: Prices = Object.freeze({
  currency: 'USD',
  models: Object.freeze(
    Object.fromEntries(TABLE.flatMap(([ids, price]) => ids.map((id) => [id, Object.freeze({ ...price })]))),
  ),
});
