/**
 * A new process resuming an OpenAI Agents session stored by chatstate: opens the store at
 * `CHATSTATE_STORE`, runs the scripted agent once on session `SESSION_ID`, and prints the model
 * requests' inputs (what the model was sent) as JSON.
 */
import { run } from '@openai/agents-core';
import { chatstateSession } from '../../../src/adapters/openai-agents/index.js';
import { openStore } from '../../../src/stores/open-store.js';
import { RESUMED_INPUT, RESUMED_TURNS, scriptedAgent, toolLog } from './agent-fixture.js';

const store = await openStore(process.env['CHATSTATE_STORE'] as string);
try {
  const session = chatstateSession({ store, sessionId: process.env['SESSION_ID'] as string });
  const { agent, model } = scriptedAgent(RESUMED_TURNS);
  const result = await run(agent, RESUMED_INPUT, { session });
  process.stdout.write(
    JSON.stringify({
      inputs: model.calls.map((call) => call.request.input),
      finalOutput: result.finalOutput,
      tools: toolLog,
    }),
  );
} finally {
  await store.close();
}
