/**
 * Reads token usage out of a provider's answer without trusting its shape: a count is used only
 * when it is a non-negative integer, so a malformed usage block loses the numbers, never the answer.
 * @module
 */
import type { Usage } from '../tokens/usage.js';

/** The value at `path` inside `value`, or undefined when any step is missing or not an object. */
function at(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = Object.hasOwn(current, key) ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

/** The token count at `path` inside `value`: a non-negative safe integer, or undefined. */
export function tokenCount(value: unknown, ...path: string[]): number | undefined {
  const count = at(value, path);
  return typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? count : undefined;
}

/** Usage from the counts read; undefined when the input count (the one `Usage` requires) is missing. */
export function usageOf(
  inputTokens: number | undefined,
  outputTokens: number | undefined,
  cachedInputTokens: number | undefined,
  cacheWriteInputTokens?: number,
): Usage | undefined {
  if (inputTokens === undefined) return undefined;
  return {
    inputTokens,
    ...(outputTokens === undefined ? {} : { outputTokens }),
    ...(cachedInputTokens === undefined ? {} : { cachedInputTokens }),
    ...(cacheWriteInputTokens === undefined ? {} : { cacheWriteInputTokens }),
  };
}
