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

  it('has an example of a corrected fact, recalled now and as of a time', async () => {
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => void logged.push(values));
    await importExample(
      'docs-active-memory-facts.ts',
      await docsExample('docs/active-memory.md', '## Facts with a lifecycle'),
    );
    expect(logged).toEqual([[['The user lives in Porto.'], ['The user lives in Lisbon.']]]);
  });

  it('has an example of a working memory patched twice, with its versions', async () => {
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => void logged.push(values));
    await importExample(
      'docs-active-memory-working.ts',
      await docsExample('docs/active-memory.md', '## Working memory', 1),
    );
    expect(logged).toEqual([[{ goals: ['marathon'] }, ['1 onboarding', '2 onboarding', '3 agent:coach']]]);
  });
});
