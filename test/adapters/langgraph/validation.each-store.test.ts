/**
 * LangGraph's own conformance kit (`@langchain/langgraph-checkpoint-validation`, its `validate`
 * library call: the CLI of 1.1.1 is broken) against `ChatstateSaver` over every chatstate store.
 * The kit's specs use Vitest's globals, so they are installed before it is loaded. Its opt-in
 * `deltaChannelHistoryTests` run too (the saver inherits `getDeltaChannelHistory`).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, test } from 'vitest';
import { ChatstateSaver } from '../../../src/adapters/langgraph/index.js';
import type { SessionStore } from '../../../src/store/session-store-types.js';
import { describeEveryStore } from '../../support/stores-under-test.js';

Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, test });
const { deltaChannelHistoryTests, validate } = await import('@langchain/langgraph-checkpoint-validation');

await describeEveryStore(
  'langgraph kit',
  (subject) => {
    const stores = new Map<ChatstateSaver, SessionStore>();
    const initializer = {
      checkpointerName: `chatstate-${subject.name}`,
      async createCheckpointer() {
        const store = await subject.create();
        const saver = new ChatstateSaver(store);
        stores.set(saver, store);
        return saver;
      },
      async destroyCheckpointer(saver: ChatstateSaver) {
        const store = stores.get(saver);
        stores.delete(saver);
        if (store !== undefined) await subject.destroy(store);
      },
    };
    validate(initializer);
    // Opt-in in the kit: the saver inherits BaseCheckpointSaver's getDeltaChannelHistory, run on our storage.
    deltaChannelHistoryTests(initializer);
  },
  'langgraph',
);
