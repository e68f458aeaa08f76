import { describe, expect, it } from 'vitest';
import { modelContextWindow } from './context-windows.js';

describe('modelContextWindow', () => {
  it.each([
    ['gpt-4o', 128_000, 16_384],
    ['gpt-4o-mini', 128_000, 16_384],
    ['gpt-4.1', 1_047_576, 32_768],
    ['gpt-4.1-nano', 1_047_576, 32_768],
    ['gpt-5-mini', 400_000, 128_000],
    ['o1-mini', 128_000, 65_536],
    ['o3', 200_000, 100_000],
    ['gpt-4-turbo', 128_000, 4_096],
    ['gpt-4', 8_192, 8_192],
    ['gpt-3.5-turbo', 16_385, 4_096],
    ['claude-3-5-haiku', 200_000, 8_192],
    ['claude-3-7-sonnet', 200_000, 64_000],
    ['claude-opus-4-1', 200_000, 32_000],
    ['claude-haiku-4-5', 200_000, 64_000],
    ['gemini-1.5-pro', 2_097_152, 8_192],
    ['gemini-2.0-flash', 1_048_576, 8_192],
    ['gemini-2.5-pro', 1_048_576, 65_536],
  ])('knows %s', (model, contextTokens, maxOutputTokens) => {
    expect(modelContextWindow(model)).toEqual({ contextTokens, maxOutputTokens });
  });

  it.each([
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['gpt-4.1-2025-04-14', 'gpt-4.1'],
    ['gpt-5-2025-08-07', 'gpt-5'],
    ['gpt-4-0613', 'gpt-4'],
    ['gpt-4-turbo-preview', 'gpt-4-turbo'],
    ['o1-preview-2024-09-12', 'o1-preview'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4'],
    ['claude-opus-4-1-20250805', 'claude-opus-4-1'],
    ['claude-3-5-sonnet-latest', 'claude-3-5-sonnet'],
    ['gemini-1.5-pro-002', 'gemini-1.5-pro'],
    ['gemini-2.5-flash-preview-05-20', 'gemini-2.5-flash'],
    ['gemini-2.0-flash-exp', 'gemini-2.0-flash'],
    ['models/gemini-2.5-pro', 'gemini-2.5-pro'],
    ['openai/GPT-4o', 'gpt-4o'],
  ])('resolves the dated or prefixed id %s as %s', (model, known) => {
    expect(modelContextWindow(model)).toEqual(modelContextWindow(known));
    expect(modelContextWindow(model)).toBeDefined();
  });

  it("never lends a model another's figures", () => {
    // gpt-4o-mini has its own entry; a longer id is matched by its longest known prefix.
    expect(modelContextWindow('gpt-4o-mini')).not.toBe(undefined);
    expect(modelContextWindow('gpt-4.1-mini-2025-04-14')).toEqual(modelContextWindow('gpt-4.1-mini'));
    // GPT-4 Turbo's dated previews are not GPT-4's 8k.
    expect(modelContextWindow('gpt-4-1106-preview')?.contextTokens).toBe(128_000);
    // Newer or other models sharing a prefix are unknown, not guessed.
    for (const model of [
      'claude-sonnet-4-6',
      'claude-opus-4-8-20260101',
      'gemini-2.5-flash-image',
      'gpt-5.5',
      'gpt-4o-realtime-preview',
      'o3-pro',
      'llama-3.1-70b',
      '',
      'constructor',
      '__proto__',
    ])
      expect(modelContextWindow(model), model).toBeUndefined();
    expect(modelContextWindow(42 as unknown as string)).toBeUndefined();
  });

  it('lets overrides win, matched the same way, and refuses a malformed one', () => {
    const mine = { contextTokens: 12_000, maxOutputTokens: 1_000 };
    expect(modelContextWindow('gpt-4o-2024-08-06', { 'gpt-4o': mine })).toEqual(mine);
    expect(modelContextWindow('My-Local-Model', { 'my-local-model': mine })).toEqual(mine);
    expect(modelContextWindow('claude-sonnet-4', { 'gpt-4o': mine })?.contextTokens).toBe(200_000);
    // Inherited keys are not overrides.
    expect(modelContextWindow('tostring', Object.create({ tostring: mine }) as Record<string, typeof mine>)).toBe(
      undefined,
    );
    for (const bad of [{ contextTokens: 0, maxOutputTokens: 1 }, { contextTokens: 10 }, null, 1.5])
      expect(() => modelContextWindow('gpt-4o', { 'gpt-4o': bad as unknown as typeof mine })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
  });

  it('returns frozen values', () => {
    expect(Object.isFrozen(modelContextWindow('gpt-4o'))).toBe(true);
    expect(Object.isFrozen(modelContextWindow('x', { x: { contextTokens: 2, maxOutputTokens: 1 } }))).toBe(true);
  });
});
