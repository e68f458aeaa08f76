/** docs/tracing.md's example runs and prints what its comments say. */
import { trace } from '@opentelemetry/api';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../cli/cli-process.js';
import { docsExample, importExample } from '../support/readme-example.js';
import { runCommand } from '../support/run-command.js';

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

  it('runs examples/tracing.ts: each turn a tree of its model, tool and store spans', async () => {
    const tsx = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const run = await runCommand(process.execPath, [tsx, join(ROOT, 'examples', 'tracing.ts')], { cwd: ROOT });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.replace(/\(\d+\.\d ms\)/, '(ms)'));
    expect(lines).toEqual([
      'invoke_agent helper (ms)  conversation=support-42 session=support-42 in=960 cached=760 out=24',
      '├─ chatstate.store.load (ms)  session=support-42 store=sqlite',
      '├─ chat demo-model (ms)  finish=tool_calls in=440 cached=380 out=12',
      '├─ execute_tool clock (ms)  call=toolu_1',
      '├─ chat demo-model (ms)  finish=stop in=520 cached=380 out=12',
      '├─ chatstate.store.load (ms)  session=support-42 store=sqlite',
      '└─ chatstate.store.save (ms)  session=support-42 store=sqlite',
      'invoke_agent helper (ms)  conversation=support-42 session=support-42 in=1280 cached=760 out=24',
      '├─ chatstate.store.summary (ms)  session=support-42 store=sqlite',
      '├─ chat demo-model (ms)  finish=tool_calls in=600 cached=380 out=12',
      '├─ execute_tool clock (ms)  call=toolu_2',
      '├─ chat demo-model (ms)  finish=stop in=680 cached=380 out=12',
      '├─ chatstate.store.summary (ms)  session=support-42 store=sqlite',
      '└─ chatstate.store.append (ms)  session=support-42 store=sqlite',
    ]);
  }, 60_000);
});
