/**
 * A turn never fails because the conversation outgrew the model's context, whatever was
 * configured: 200 tool-heavy turns against a model that refuses prompts over its limit (counted
 * with its own tokenizer, higher than chatstate's estimate) end with 0 failed turns, every
 * message stored whole, and the window cutting in steps so consecutive requests share a prefix.
 */
import { describe, expect, it } from 'vitest';
import { tokenLimit } from '../../src/compaction/token-limit.js';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Conversation, type ConversationOptions } from '../../src/runtime/index.js';
import type { Tool, TurnResult } from '../../src/runtime/types.js';
import { memoryStore } from '../../src/stores/memory-store.js';
import { limitedModel, type LimitedModel } from '../support/limited-model.js';

const LIMIT = 12_000;
const TURNS = 200;
const WORDS = ['ledger', 'invoice', 'quarter', 'region', 'budget', 'forecast', 'vendor', 'audit', 'margin', 'freight'];

/** A page of `tokens` or so tokens of text, different per page. */
function page(n: number, tokens: number): string {
  const words: string[] = [];
  for (let i = 0; words.length < tokens * 0.75; i++) words.push(`${WORDS[(n * 7 + i) % WORDS.length]}${(n + i) % 97}`);
  return words.join(' ');
}

function reader(tokens: (page: number) => number): Tool {
  return {
    name: 'read',
    description: 'Reads a page of the report.',
    parameters: { type: 'object', properties: { page: { type: 'number' } } },
    execute: (args) => {
      const n = (args as { page: number }).page;
      return page(n, tokens(n));
    },
  };
}

interface Run {
  readonly results: TurnResult[];
  readonly failed: unknown[];
  readonly model: LimitedModel;
  readonly conversation: Conversation;
}

async function converse(
  options: Partial<ConversationOptions>,
  model: LimitedModel,
  tool: Tool,
  turns = TURNS,
): Promise<Run> {
  const conversation = new Conversation({
    store: memoryStore(),
    agents: { id: 'analyst', model, system: 'You read reports and answer briefly.', tools: [tool] },
    ...options,
  });
  const results: TurnResult[] = [];
  const failed: unknown[] = [];
  for (let turn = 0; turn < turns; turn++) {
    try {
      results.push(await conversation.send('report', [Message.user(`Question ${turn}: what does the next page say?`)]));
    } catch (error) {
      failed.push(error);
    }
  }
  return { results, failed, model, conversation };
}

function refusals(model: LimitedModel): number {
  return model.calls.filter((call) => call.refused).length;
}

describe('a turn never fails for overflow, whatever was configured', () => {
  const configurations: ReadonlyArray<[string, () => Partial<ConversationOptions>]> = [
    ['nothing configured (the whole history)', () => ({})],
    ["contextWindow at the provider's limit (the estimate counts less)", () => ({ contextWindow: LIMIT })],
    ['tokenLimit alone', () => ({ compactor: tokenLimit({ maxTokens: LIMIT, targetTokens: LIMIT / 2 }) })],
    [
      "contextWindow 'auto' with the model's window",
      () => ({
        contextWindow: { tokens: 'auto', models: { limited: { contextTokens: LIMIT, maxOutputTokens: 1000 } } },
      }),
    ],
  ];
  for (const [name, options] of configurations) {
    it(`${name}: ${TURNS} turns of ~1,300-token tool outputs, 0 failed, every message stored`, async () => {
      const model = limitedModel({ limit: LIMIT });
      const run = await converse(
        options(),
        model,
        reader(() => 1300),
      );
      expect(run.failed).toEqual([]);
      expect(run.results).toHaveLength(TURNS);
      // Learning from the first refusal: later turns are fitted before they are sent.
      expect(refusals(model)).toBeLessThanOrEqual(2);
      const session = await run.conversation.manager.store.load('report');
      const stored = session.messages;
      const hasCompactor = 'compactor' in options();
      if (!hasCompactor) expect(stored.filter((message) => message.role === 'tool')).toHaveLength(TURNS);
      // Whole tool outputs in the store, whatever the requests held.
      for (const message of stored.filter((m) => m.role === 'tool'))
        expect(String(message.content).length).toBeGreaterThan(3000);
      await run.conversation.close();
    });
  }

  it('a refusal that states the limit costs one extra call, and says so in the turn', async () => {
    const model = limitedModel({ limit: LIMIT });
    const run = await converse(
      {},
      model,
      reader(() => 1300),
      40,
    );
    expect(run.failed).toEqual([]);
    const refused = run.results.filter((result) => result.fitted?.reason === 'overflow');
    expect(refused).toHaveLength(1);
    expect(refused[0]?.fitted).toMatchObject({ retries: 1, limitTokens: LIMIT, limitSource: 'provider' });
    expect(refusals(model)).toBe(1);
    await run.conversation.close();
  });

  it('a refusal without figures is fitted by shrinking, within the bound', async () => {
    const model = limitedModel({ limit: LIMIT, statesFigures: false });
    const run = await converse(
      {},
      model,
      reader(() => 1300),
      60,
    );
    expect(run.failed).toEqual([]);
    expect(refusals(model)).toBeLessThanOrEqual(4);
    await run.conversation.close();
  });

  it('a tool output larger than the whole window still completes its turn; the store keeps it whole', async () => {
    const model = limitedModel({ limit: 4000 });
    const run = await converse(
      { contextWindow: 'auto' },
      model,
      reader((n) => (n === 3 ? 20_000 : 300)),
      6,
    );
    expect(run.failed).toEqual([]);
    const big = run.results[2];
    expect(big?.fitted).toMatchObject({ shortenedToolOutputs: 1 });
    const stored = (await run.conversation.manager.store.load('report')).messages.filter((m) => m.role === 'tool');
    expect(String(stored[2]?.content).length).toBeGreaterThan(60_000);
    // The request that answered it held a shortened copy.
    const answered = model.calls.filter((call) => !call.refused).at(-7);
    expect(answered).toBeDefined();
    await run.conversation.close();
  });

  it('a prompt that can never fit fails with CONTEXT_OVERFLOW after a bounded number of calls, storing nothing', async () => {
    const model = limitedModel({ limit: 50 });
    const conversation = new Conversation({
      store: memoryStore(),
      agents: { id: 'a', model, system: page(1, 400), tools: [reader(() => 10)] },
    });
    const error = await conversation.send('s', [Message.user('hello')]).catch((caught: unknown) => caught);
    expect(ChatstateError.hasCode(error, 'CONTEXT_OVERFLOW')).toBe(true);
    expect(model.calls.length).toBeLessThanOrEqual(4);
    expect(await conversation.manager.store.get('s')).toBeUndefined();
    await conversation.close();
  });
});

describe('the window cuts in steps, so the prompt prefix stays the same between cuts', () => {
  it('over 120 turns the first message of the request changes only at cuts, a few times', async () => {
    const model = limitedModel({ limit: 100_000 });
    const run = await converse(
      { contextWindow: 8000 },
      model,
      reader(() => 500),
      120,
    );
    expect(run.failed).toEqual([]);
    const firsts = model.calls.map((call) => call.request.messages[0]?.id);
    let changes = 0;
    for (let i = 1; i < firsts.length; i++) if (firsts[i] !== firsts[i - 1]) changes += 1;
    // A tight window would move its start on nearly every call (240 calls); steps of half the window: a few dozen turns apart.
    expect(changes).toBeGreaterThan(3);
    expect(changes).toBeLessThan(30);
    // Between cuts, each request starts with the previous one's messages.
    let prefixKept = 0;
    for (let i = 1; i < model.calls.length; i++) {
      const before = model.calls[i - 1]?.request.messages ?? [];
      const now = model.calls[i]?.request.messages ?? [];
      if (before.every((message, index) => now[index]?.id === message.id)) prefixKept += 1;
    }
    expect(prefixKept / (model.calls.length - 1)).toBeGreaterThan(0.85);
    await run.conversation.close();
  });
});
