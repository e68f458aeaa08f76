/**
 * The real runner (`run()` of @openai/agents-core with its `ScriptedModel`) over a chatstate
 * session on every store: three runs with real tool calls (one, two in parallel, one more), then a
 * NEW PROCESS resumes from the stored session and its model request must carry the whole earlier
 * history. The stored thread is a provider-valid chatstate conversation.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { run, type AgentInputItem } from '@openai/agents-core';
import { expect, it } from 'vitest';
import { chatstateSession } from '../../../src/adapters/openai-agents/index.js';
import { formats } from '../../../src/formats/index.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { FIRST_INPUTS, FIRST_TURNS, RESUMED_INPUT, RESUMED_TURNS, scriptedAgent } from './agent-fixture.js';

const CHILD = fileURLToPath(new URL('./resume-child.ts', import.meta.url));
const runFile = promisify(execFile);

/** What the resumed process printed. */
interface Resumed {
  readonly inputs: AgentInputItem[][];
  readonly finalOutput: string;
  readonly tools: string[];
}

async function resumeInChild(url: string, sessionId: string): Promise<Resumed> {
  const { stdout } = await runFile(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, CHATSTATE_STORE: url, SESSION_ID: sessionId, OPENAI_AGENTS_DISABLE_TRACING: '1' },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as Resumed;
}

function userText(item: AgentInputItem | undefined): unknown {
  return item !== undefined && 'role' in item && item.role === 'user' ? item.content : undefined;
}

await describeEveryStore(
  'openai-agents runner',
  (subject) => {
    const stores = storesOf(subject);

    it('runs tool calls over several turns, and a new process resumes with the whole history', async () => {
      const store = await stores.open();
      const sessionId = `run-${subject.name}`;
      const session = chatstateSession({ store, sessionId });
      const { agent, model } = scriptedAgent(FIRST_TURNS);
      const outputs: unknown[] = [];
      for (const input of FIRST_INPUTS) outputs.push((await run(agent, input, { session })).finalOutput);
      expect(outputs).toEqual(['Sunny in Oslo.', 'Sunny in both.', 'Booked: R-42.']);
      // Each run's first request already carried the earlier runs' items, from the store.
      const lastRunFirstCall = model.calls[4]?.request.input as AgentInputItem[];
      expect(lastRunFirstCall.map(userText).filter((text) => text !== undefined)).toEqual(FIRST_INPUTS);

      const history = await session.getItems();
      // 3 user messages, 4 function calls, 4 results, 3 assistant messages.
      expect(history).toHaveLength(14);
      expect(history.filter((item) => item.type === 'function_call')).toHaveLength(4);
      expect(history.filter((item) => item.type === 'function_call_result')).toHaveLength(4);

      // The stored thread: tool calls paired with their results, valid for every provider format.
      const stored = await store.load(sessionId);
      expect(stored.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'assistant',
        'user',
        'assistant',
        'tool',
        'tool',
        'assistant',
        'user',
        'assistant',
        'tool',
        'assistant',
      ]);
      expect(stored.messages[5]?.toolCalls?.map((call) => call.id)).toEqual(['call_rome', 'call_paris']);
      expect(formats.openaiChat.validate(formats.openaiChat.to(stored.messages))).toEqual([]);
      expect(formats.openaiResponses.validate(formats.openaiResponses.to(stored.messages))).toEqual([]);
      expect(formats.anthropic.validate(formats.anthropic.to(stored.messages))).toEqual([]);

      let resumed: Resumed;
      const url = subject.url(store);
      if (url === undefined) {
        // The memory store's data lives in this process: the resume is a second store over it.
        const second = await stores.reopen(store);
        const again = scriptedAgent(RESUMED_TURNS);
        const result = await run(again.agent, RESUMED_INPUT, {
          session: chatstateSession({ store: second, sessionId }),
        });
        resumed = {
          inputs: again.model.calls.map((call) => call.request.input as AgentInputItem[]),
          finalOutput: result.finalOutput as string,
          tools: [],
        };
      } else {
        resumed = await resumeInChild(url, sessionId);
        expect(resumed.tools).toEqual(['weather:Tokyo']);
      }
      expect(resumed.finalOutput).toBe('Sunny in Tokyo too.');
      const firstRequest = resumed.inputs[0] as AgentInputItem[];
      expect(firstRequest.slice(0, history.length)).toEqual(history);
      expect(firstRequest).toHaveLength(history.length + 1);
      expect(userText(firstRequest.at(-1))).toBe(RESUMED_INPUT);

      const reader = url === undefined ? store : await stores.reopen(store);
      const after = await chatstateSession({ store: reader, sessionId }).getItems();
      expect(after.slice(0, history.length)).toEqual(history);
      expect(after.slice(history.length).map((item) => item.type)).toEqual([
        'message',
        'function_call',
        'function_call_result',
        'message',
      ]);
    }, 90_000);
  },
  'oarun',
);
