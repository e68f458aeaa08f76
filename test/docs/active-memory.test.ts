/** docs/active-memory.md's example runs and prints what its comment says. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../src/message/message.js';
import { docsExample, importExample } from '../support/readme-example.js';

afterEach(() => vi.restoreAllMocks());

describe('docs/active-memory.md', () => {
  it('has an example that stores values, remembers and recalls', async () => {
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => void logged.push(values));
    const module = await importExample<{ messages: readonly Message[] }>(
      'docs-active-memory.ts',
      `${await docsExample('docs/active-memory.md', '## An example')}\nexport { messages };\n`,
    );
    expect(logged).toEqual([
      [
        [
          'knowledge: The user prefers window seats.',
          'message: I am flying to Lisbon in May, and I hate middle seats.',
        ],
      ],
    ]);
    // "the two messages of trip-1"
    expect(module.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });
});
