/**
 * Fitting end to end: `Conversation` through the real `openai` and `@anthropic-ai/sdk` clients to
 * the provider simulator, which counts with its own tokenizer, refuses an over-long prompt with
 * the provider's real 400 body and caches prompt prefixes. Nothing configured, a conversation
 * reaches the 8k limit and goes on for 200 turns with 0 failures; with the recommended context the
 * provider never refuses a call and most prompt tokens are served from its cache.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { anthropicModel } from '../../src/models/anthropic.js';
import { openaiChatModel } from '../../src/models/openai-chat.js';
import type { ChatModel } from '../../src/models/types.js';
import { recommendedContext } from '../../src/runtime/context-options.js';
import { Conversation, type ConversationOptions } from '../../src/runtime/index.js';
import { memoryStore } from '../../src/stores/memory.js';
import { documentTool, startProviderSimulator, type RunningProviderSimulator } from '../support/provider-simulator.js';

const MODEL = 'sim-8k';
const LIMIT = 8192;
const TURNS = 200;

let simulator: RunningProviderSimulator;

beforeEach(async () => {
  simulator = await startProviderSimulator();
});
afterEach(() => simulator.close());

async function converse(model: ChatModel, options: Partial<ConversationOptions>, turns = TURNS) {
  const conversation = new Conversation({
    store: memoryStore(),
    agents: { id: 'agent', model, system: 'Read what you need, then answer briefly.', tools: [documentTool()] },
    ...options,
  });
  const failed: unknown[] = [];
  const fitted: string[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    try {
      const result = await conversation.send('long', [Message.user(`Question ${turn}: what changed in part ${turn}?`)]);
      if (result.fitted !== undefined) fitted.push(result.fitted.reason);
    } catch (error) {
      failed.push(error);
    }
  }
  const stored = await conversation.manager.store.load('long');
  await conversation.close();
  return { failed, fitted, stored };
}

function share(records: RunningProviderSimulator['records']): number {
  const answered = records.filter((record) => !record.overflow);
  const prompt = answered.reduce((sum, record) => sum + record.promptTokens, 0);
  return answered.reduce((sum, record) => sum + record.cachedTokens, 0) / prompt;
}

describe('through the official clients, against a provider with a limit', () => {
  it(`openai, nothing configured: ${TURNS} turns past the limit, 0 failed, one refused call`, async () => {
    const client = new OpenAI({ apiKey: 'test', baseURL: `${simulator.url}/v1`, maxRetries: 0 });
    const run = await converse(openaiChatModel({ client, model: MODEL }), {});
    expect(run.failed).toEqual([]);
    expect(simulator.records.filter((record) => record.overflow)).toHaveLength(1);
    expect(run.fitted[0]).toBe('overflow');
    // The store keeps every turn whole: the requests were cut, not the session.
    expect(run.stored.messages.filter((message) => message.role === 'user')).toHaveLength(TURNS);
    expect(simulator.records.every((record) => record.overflow || record.promptTokens <= LIMIT)).toBe(true);
  });

  it('openai, the recommended context: no refused call, the same cache key on every call, most tokens cached', async () => {
    const client = new OpenAI({ apiKey: 'test', baseURL: `${simulator.url}/v1`, maxRetries: 0 });
    const keys = new Set<unknown>();
    simulator.server.respondWith((request) => {
      keys.add((request.body as { prompt_cache_key?: unknown }).prompt_cache_key);
      return simulator.respond(request);
    });
    const context = recommendedContext({ models: { [MODEL]: { contextTokens: LIMIT, maxOutputTokens: 4096 } } });
    const run = await converse(openaiChatModel({ client, model: MODEL }), context, 80);
    expect(run.failed).toEqual([]);
    expect(simulator.records.filter((record) => record.overflow)).toEqual([]);
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^chatstate-[0-9a-f]{32}$/);
    expect(share(simulator.records)).toBeGreaterThan(0.5);
  });

  it('anthropic, nothing configured: past the limit with 0 failed turns, and its breakpoints read the cache', async () => {
    const client = new Anthropic({ apiKey: 'test', baseURL: simulator.url, maxRetries: 0 });
    const run = await converse(anthropicModel({ client, model: MODEL, maxTokens: 512 }), {}, 60);
    expect(run.failed).toEqual([]);
    expect(simulator.records.filter((record) => record.overflow).length).toBeLessThanOrEqual(1);
    expect(simulator.records.some((record) => record.cachedTokens > 0)).toBe(true);
  });
});
