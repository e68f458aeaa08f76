/** docs/compaction.md's example runs and prints what its comment says. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CompactionResult } from '../../src/compaction/index.js';
import type { Session } from '../../src/session/session.js';
import { docsExample, importExample } from '../support/readme-example.js';

afterEach(() => vi.restoreAllMocks());

describe('docs/compaction.md', () => {
  it('has an example that keeps the system prompt and five whole turns, three with truncated results', async () => {
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => void logged.push(values));
    const module = await importExample<{ compacted: Session; result: CompactionResult }>(
      'docs-compaction.ts',
      `${await docsExample('docs/compaction.md', '## An example')}\nexport { compacted, result };\n`,
    );
    // "49 messages → 21"
    expect(logged).toEqual([[49, '→', 21, 28, 10]]);
    const messages = module.compacted.messages;
    expect(messages[0]?.role).toBe('system');
    expect(messages.slice(1).filter((message) => message.role === 'user')).toHaveLength(5);
    expect(messages.find((message) => message.role === 'user')?.content).toBe('Question 8?');
    // "three of them with truncated results"
    const truncated = messages.filter((message) => message.role === 'tool' && message.metadata.truncated !== undefined);
    expect(truncated).toHaveLength(3);
    expect(module.result.strategy).toContain('slidingWindow');
  });
});
