/** docs/tracing.md's example runs and prints what its comments say. */
import { trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { docsExample, importExample } from '../support/readme-example.js';

afterEach(() => {
  vi.restoreAllMocks();
  trace.disable();
});

describe('docs/tracing.md', () => {
  it('has an example whose turn is invoke_agent > chat, execute_tool, chat', async () => {
    const logged: unknown[][] = [];
    vi.spyOn(console, 'log').mockImplementation((...values: unknown[]) => void logged.push(values));
    await importExample('docs-tracing.ts', await docsExample('docs/tracing.md', '## An example'));
    expect(logged).toEqual([[['chat demo-model', 'execute_tool clock', 'chat demo-model']], ['support-42', 200]]);
  });
});
