import { describe, expect, it } from 'vitest';
import type { ToolChoice, ToolSpec } from './types.js';
import { TOOL_NAME_PATTERN, checkTools, defaultToolParameters } from './tools.js';

const weather: ToolSpec = {
  name: 'get_weather',
  description: 'Weather.',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

describe('checkTools', () => {
  it('fills the default parameters schema and keeps the rest', () => {
    expect(checkTools([weather, { name: 'now' }], undefined, 'openaiChat')).toEqual({
      tools: [weather, { name: 'now', parameters: { type: 'object', properties: {} } }],
    });
  });

  it('gives a fresh default schema each time', () => {
    const first = defaultToolParameters();
    expect(first).not.toBe(defaultToolParameters());
    expect(first).toEqual({ type: 'object', properties: {} });
  });

  it.each<[ToolChoice, unknown]>([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'required' }],
    [{ name: 'get_weather' }, { type: 'tool', name: 'get_weather' }],
  ])('maps the choice %j', (choice, expected) => {
    expect(checkTools([weather], choice, 'anthropic').choice).toEqual(expected);
  });

  it('drops auto and none without tools, where they are the default anyway', () => {
    expect(checkTools(undefined, 'auto', 'openaiChat')).toEqual({ tools: [] });
    expect(checkTools([], 'none', 'openaiChat')).toEqual({ tools: [] });
  });

  it('accepts names at the edges of the rule', () => {
    expect(TOOL_NAME_PATTERN.test('a'.repeat(64))).toBe(true);
    expect(checkTools([{ name: 'A-z_0' }], undefined, 'openaiChat').tools).toHaveLength(1);
  });

  it.each<[string, unknown, unknown, string]>([
    ['tools that are not an array', { name: 'x' }, undefined, 'tools must be an array'],
    ['a tool that is not an object', [null], undefined, 'tools[0] must be an object'],
    ['an empty name', [{ name: '' }], undefined, 'tools[0].name'],
    ['a name of 65 characters', [{ name: 'a'.repeat(65) }], undefined, 'tools[0].name'],
    ['a name with a dot', [{ name: 'a.b' }], undefined, 'tools[0].name'],
    ['a name that is not a string', [{ name: 7 }], undefined, 'tools[0].name number'],
    ['a description that is not a string', [{ name: 'x', description: 1 }], undefined, 'description must be a string'],
    ['parameters that are an array', [{ name: 'x', parameters: [] }], undefined, 'JSON Schema object'],
    ['parameters without type object', [{ name: 'x', parameters: { properties: {} } }], undefined, 'type "object"'],
    ['a duplicate name', [weather, weather], undefined, 'two tools are named'],
    ['a choice naming no given tool', [weather], { name: 'other' }, 'not in tools'],
    ['required without tools', [], 'required', 'at least one tool'],
    ['an unknown choice', [weather], 'any', 'toolChoice must be'],
    ['a choice object without a name', [weather], { type: 'tool' }, 'toolChoice must be'],
  ])('refuses %s with INVALID_ARGUMENT', (_what, tools, choice, why) => {
    expect(() => checkTools(tools as ToolSpec[], choice as ToolChoice, 'openaiResponses')).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(why) as unknown }),
    );
  });

  it('names the provider in the error', () => {
    expect(() => checkTools([{ name: '' }], undefined, 'anthropic')).toThrow(/^anthropic: /);
  });
});
