/**
 * chatstate's OpenTelemetry spans and metrics, read through the SDK's in-memory exporters: a turn's
 * span tree (invoke_agent > chat, execute_tool, chat) with the GenAI conventions' names and usage,
 * compaction, recall and store spans, continuation links, errors, a failing exporter, and no
 * provider at all.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ROOT_CONTEXT, SpanStatusCode, context, trace, type Context, type ContextManager } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import * as semconv from '@opentelemetry/semantic-conventions/incubating';
import { afterEach, describe, expect, it } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { compaction } from '../../src/compaction/index.js';
import { SessionManager } from '../../src/manager/session-manager.js';
import { ChatstateError } from '../../src/errors.js';
import * as names from '../../src/internal/gen-ai-names.js';
import { chatWithState } from '../../src/runtime/chat-with-state.js';
import { Conversation } from '../../src/runtime/conversation.js';
import type { Tool } from '../../src/runtime/types.js';
import { callTools, say, scriptedModel } from '../support/scripted-model.js';
import { installTelemetry, type Telemetry } from '../support/telemetry.js';
import { closeAfterTest, openStoreOf } from '../runtime/fixtures.js';

const echo: Tool = {
  name: 'echo',
  description: 'Returns its arguments.',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
  execute: (args) => args,
};

let telemetry: Telemetry | undefined;
afterEach(async () => {
  await telemetry?.uninstall();
  telemetry = undefined;
});

function install(...args: Parameters<typeof installTelemetry>): Telemetry {
  telemetry = installTelemetry(...args);
  return telemetry;
}

function only(spans: readonly ReadableSpan[]): ReadableSpan {
  expect(spans).toHaveLength(1);
  return spans[0] as ReadableSpan;
}

function isChildOf(child: ReadableSpan, parent: ReadableSpan): boolean {
  return (
    child.parentSpanContext?.spanId === parent.spanContext().spanId &&
    child.spanContext().traceId === parent.spanContext().traceId
  );
}

describe('tracing', () => {
  it('names its attributes and metrics as the GenAI semantic conventions do', () => {
    expect(names.GEN_AI_OPERATION_NAME).toBe(semconv.ATTR_GEN_AI_OPERATION_NAME);
    expect(names.GEN_AI_PROVIDER_NAME).toBe(semconv.ATTR_GEN_AI_PROVIDER_NAME);
    expect(names.GEN_AI_REQUEST_MODEL).toBe(semconv.ATTR_GEN_AI_REQUEST_MODEL);
    expect(names.GEN_AI_RESPONSE_MODEL).toBe(semconv.ATTR_GEN_AI_RESPONSE_MODEL);
    expect(names.GEN_AI_RESPONSE_FINISH_REASONS).toBe(semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS);
    expect(names.GEN_AI_USAGE_INPUT_TOKENS).toBe(semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS);
    expect(names.GEN_AI_USAGE_OUTPUT_TOKENS).toBe(semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS);
    expect(names.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS).toBe(semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS);
    expect(names.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS).toBe(semconv.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS);
    expect(names.GEN_AI_CONVERSATION_ID).toBe(semconv.ATTR_GEN_AI_CONVERSATION_ID);
    expect(names.GEN_AI_AGENT_NAME).toBe(semconv.ATTR_GEN_AI_AGENT_NAME);
    expect(names.GEN_AI_AGENT_ID).toBe(semconv.ATTR_GEN_AI_AGENT_ID);
    expect(names.GEN_AI_TOOL_NAME).toBe(semconv.ATTR_GEN_AI_TOOL_NAME);
    expect(names.GEN_AI_TOOL_CALL_ID).toBe(semconv.ATTR_GEN_AI_TOOL_CALL_ID);
    expect(names.GEN_AI_TOOL_TYPE).toBe(semconv.ATTR_GEN_AI_TOOL_TYPE);
    expect(names.GEN_AI_DATA_SOURCE_ID).toBe(semconv.ATTR_GEN_AI_DATA_SOURCE_ID);
    expect(names.GEN_AI_TOKEN_TYPE).toBe(semconv.ATTR_GEN_AI_TOKEN_TYPE);
    expect(names.SESSION_ID).toBe(semconv.ATTR_SESSION_ID);
    expect(names.SESSION_PREVIOUS_ID).toBe(semconv.ATTR_SESSION_PREVIOUS_ID);
    expect(names.ERROR_TYPE).toBe(semconv.ATTR_ERROR_TYPE);
    expect(names.OPERATION_CHAT).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT);
    expect(names.OPERATION_INVOKE_AGENT).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT);
    expect(names.OPERATION_EXECUTE_TOOL).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
    expect(names.OPERATION_RETRIEVAL).toBe(semconv.GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL);
    expect(names.METRIC_TOKEN_USAGE).toBe(semconv.METRIC_GEN_AI_CLIENT_TOKEN_USAGE);
    expect(names.METRIC_OPERATION_DURATION).toBe(semconv.METRIC_GEN_AI_CLIENT_OPERATION_DURATION);
    expect(names.genAiProvider('openaiResponses')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_OPENAI);
    expect(names.genAiProvider('anthropic')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC);
    expect(names.genAiProvider('gemini')).toBe(semconv.GEN_AI_PROVIDER_NAME_VALUE_GCP_GEMINI);
  });

  it('traces a turn with a tool call as invoke_agent > chat, execute_tool, chat, with usage, ids and store spans', async () => {
    const otel = install();
    const { store } = await openStoreOf('memory');
    const model = scriptedModel(
      [
        callTools([{ id: 'call_1', name: 'echo', arguments: { text: 'x' } }], { inputTokens: 100, outputTokens: 7 }),
        say('done', { inputTokens: 120, outputTokens: 3, cachedInputTokens: 96, cacheWriteInputTokens: 4 }),
      ],
      { model: 'gpt-test' },
    );
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'helper', model, tools: [echo] } }));
    const result = await conversation.send('s1', 'Hi');
    expect(result.reply.content).toBe('done');

    const turn = only(otel.named('invoke_agent helper'));
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'helper',
      'gen_ai.conversation.id': 's1',
      'session.id': 's1',
      'gen_ai.usage.input_tokens': 220,
      'gen_ai.usage.output_tokens': 10,
      'gen_ai.usage.cache_read.input_tokens': 96,
    });
    expect(turn.attributes['session.previous_id']).toBeUndefined();
    expect(turn.parentSpanContext).toBeUndefined();

    const chats = otel.named('chat gpt-test');
    expect(chats).toHaveLength(2);
    const tool = only(otel.named('execute_tool echo'));
    for (const span of [...chats, tool]) expect(isChildOf(span, turn)).toBe(true);
    // In the order they ran: chat, then the tool, then chat.
    const [first, second] = chats as [ReadableSpan, ReadableSpan];
    expect(first.endTime <= tool.startTime || first.endTime[0] <= tool.startTime[0]).toBe(true);
    expect(second.startTime >= tool.endTime || second.startTime[0] >= tool.endTime[0]).toBe(true);
    expect(first.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    expect(second.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.usage.cache_read.input_tokens': 96,
      'gen_ai.usage.cache_creation.input_tokens': 4,
    });
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'call_1',
    });
    expect(tool.status.code).not.toBe(SpanStatusCode.ERROR);

    // The turn's store work is in its tree, named with the store, and carries no message content.
    const stores = otel
      .named('chatstate.store.*')
      .filter((span) => span.spanContext().traceId === turn.spanContext().traceId);
    expect(stores.length).toBeGreaterThan(0);
    for (const span of stores) {
      expect(span.attributes['chatstate.store.name']).toBe(store.name);
      expect(JSON.stringify(span.attributes)).not.toContain('Hi');
    }
    expect(stores.map((span) => span.attributes['chatstate.store.operation'])).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(append|save)$/)]),
    );
  });

  it('records the client token usage and operation duration histograms', async () => {
    const otel = install();
    const { store } = await openStoreOf('memory');
    const model = scriptedModel([say('hi', { inputTokens: 40, outputTokens: 2 })], { model: 'm1' });
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    await conversation.send('s1', 'Hi');
    const collected = await otel.collect();
    const all = collected.scopeMetrics.flatMap((scope) => scope.metrics);
    const usage = all.find((metric) => metric.descriptor.name === 'gen_ai.client.token.usage');
    const duration = all.find((metric) => metric.descriptor.name === 'gen_ai.client.operation.duration');
    expect(duration?.descriptor.unit).toBe('s');
    expect(duration?.dataPoints).toHaveLength(1);
    expect(duration?.dataPoints[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'm1',
    });
    const byType = Object.fromEntries(
      (usage?.dataPoints ?? []).map((point) => [
        point.attributes['gen_ai.token.type'],
        (point.value as { sum: number }).sum,
      ]),
    );
    expect(byType).toEqual({ input: 40, output: 2 });
  });

  it('traces compaction with its tokens before and after', async () => {
    const otel = install();
    const { store } = await openStoreOf('memory');
    const model = scriptedModel([say('one'), say('two'), say('three')]);
    const conversation = closeAfterTest(
      new Conversation({ store, agents: { id: 'a', model }, compactor: compaction.messageLimit({ maxMessages: 2 }) }),
    );
    await conversation.send('s1', 'first');
    await conversation.send('s1', 'second');
    await conversation.send('s1', 'third');
    const spans = otel
      .named('chatstate.compaction')
      .filter((span) => span.attributes['chatstate.compaction.compacted']);
    expect(spans.length).toBeGreaterThan(0);
    const span = spans.at(-1) as ReadableSpan;
    const before = span.attributes['chatstate.compaction.tokens_before'] as number;
    const after = span.attributes['chatstate.compaction.tokens_after'] as number;
    expect(span.attributes['chatstate.compaction.strategy']).toBe('messageLimit');
    expect(before).toBeGreaterThan(after);
    expect(after).toBeGreaterThan(0);
    const turns = otel.named('invoke_agent a');
    expect(turns.some((turn) => isChildOf(span, turn))).toBe(true);
  });

  it('traces recall as a retrieval span', async () => {
    const otel = install();
    const { store } = await openStoreOf('memory');
    const handle = createSessionHandle({ store, sessionId: 'chat', userId: 'alice' });
    await handle.remember('alice keeps the vault key under the mat');
    const hits = await handle.recall('vault key', { k: 5 });
    expect(hits.length).toBeGreaterThan(0);
    const span = only(otel.named(`retrieval ${store.name}`));
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': store.name,
      'gen_ai.conversation.id': 'chat',
      'chatstate.recall.hits': hits.length,
    });
    expect(JSON.stringify(span.attributes)).not.toContain('vault');
    // Its reads are its children.
    expect(otel.named('chatstate.store.*').some((child) => isChildOf(child, span))).toBe(true);
  });

  it('links a continued session to its predecessor with session.previous_id', async () => {
    const otel = install();
    const { store } = await openStoreOf('memory');
    const manager = new SessionManager({ store, maxMessagesPerSession: 2 });
    const model = scriptedModel([say('one'), say('two')]);
    const conversation = closeAfterTest(
      new Conversation({ manager, continueAtBoundary: true, agents: { id: 'a', model } }),
    );
    const first = await conversation.send('s1', 'first');
    const second = await conversation.send('s1', 'second');
    const successor = second.session.id;
    expect(first.continuedTo).toBe(successor);
    const [before, after] = otel.named('invoke_agent a') as [ReadableSpan, ReadableSpan];
    expect(before.attributes['session.previous_id']).toBeUndefined();
    expect(after.attributes).toMatchObject({
      'gen_ai.conversation.id': 's1',
      'session.id': successor,
      'session.previous_id': 's1',
    });
    await manager.close();
  });

  it("nests through the app's context manager when there is one: a span of a tool nests under execute_tool", async () => {
    const otel = install();
    // What @opentelemetry/context-async-hooks registers, in a few lines.
    const storage = new AsyncLocalStorage<Context>();
    const manager: ContextManager = {
      active: () => storage.getStore() ?? ROOT_CONTEXT,
      with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.call(thisArg, ...args)),
      bind: (_ctx, target) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    };
    context.setGlobalContextManager(manager);
    try {
      const { store } = await openStoreOf('memory');
      const traced: Tool = {
        name: 'traced',
        execute: () => trace.getTracer('app').startActiveSpan('app work', (span) => (span.end(), 'ok')),
      };
      const model = scriptedModel([callTools([{ name: 'traced' }]), say('ok')]);
      const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, tools: [traced] } }));
      await trace.getTracer('app').startActiveSpan('request', async (request) => {
        await conversation.send('s1', 'Hi');
        request.end();
      });
      const turn = only(otel.named('invoke_agent a'));
      expect(isChildOf(turn, only(otel.named('request')))).toBe(true);
      const tool = only(otel.named('execute_tool traced'));
      expect(isChildOf(tool, turn)).toBe(true);
      expect(isChildOf(only(otel.named('app work')), tool)).toBe(true);
      expect(otel.named('chat *').every((span) => isChildOf(span, turn))).toBe(true);
    } finally {
      context.disable();
    }
  });

  it('marks a failed turn and its model call ERROR with the chatstate error code', async () => {
    const otel = install();
    const { store } = await openStoreOf('memory');
    const model = scriptedModel([{ error: Object.assign(new Error('rate limited'), { status: 429 }) }], { model: 'm' });
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model } }));
    const error = await conversation.send('s1', 'Hi').catch((caught: unknown) => caught);
    expect(ChatstateError.isInstance(error)).toBe(true);
    const code = (error as ChatstateError).code;
    for (const span of [only(otel.named('invoke_agent a')), only(otel.named('chat m'))]) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes['error.type']).toBe(code);
    }
  });

  it('marks a tool call whose error became its result', async () => {
    const otel = install();
    const { store } = await openStoreOf('memory');
    const model = scriptedModel([callTools([{ name: 'missing' }]), say('ok')]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, tools: [echo] } }));
    await conversation.send('s1', 'Hi');
    const span = only(otel.named('execute_tool missing'));
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('unknown_tool');
  });

  it('traces chatWithState as a turn too', async () => {
    const otel = install();
    const model = scriptedModel([callTools([{ name: 'echo', arguments: {} }]), say('ok')], { model: 'm' });
    await chatWithState(model, undefined, 'Hi', { tools: [echo], sessionId: 'conv-9' });
    const turn = only(otel.named('invoke_agent'));
    expect(turn.attributes['gen_ai.conversation.id']).toBe('conv-9');
    expect(otel.named('chat m').every((span) => isChildOf(span, turn))).toBe(true);
    expect(isChildOf(only(otel.named('execute_tool echo')), turn)).toBe(true);
  });

  it('never fails a turn when the exporter throws', async () => {
    install({
      exporter: {
        export: () => {
          throw new Error('exporter down');
        },
        shutdown: async () => undefined,
      },
    });
    const { store } = await openStoreOf('memory');
    const model = scriptedModel([callTools([{ name: 'echo', arguments: {} }]), say('fine')]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, tools: [echo] } }));
    expect((await conversation.send('s1', 'Hi')).reply.content).toBe('fine');
  });

  it('works and records nothing when no provider is registered', async () => {
    const otel = installTelemetry();
    await otel.uninstall();
    const { store } = await openStoreOf('memory');
    const model = scriptedModel([callTools([{ name: 'echo', arguments: {} }]), say('fine')]);
    const conversation = closeAfterTest(new Conversation({ store, agents: { id: 'a', model, tools: [echo] } }));
    expect((await conversation.send('s1', 'Hi')).reply.content).toBe('fine');
    expect(otel.spans()).toEqual([]);
  });

  it('runs turns without @opentelemetry/api installed, asking for it once', () => {
    const child = fileURLToPath(new URL('../support/otel-missing-child.ts', import.meta.url));
    const result = spawnSync(process.execPath, ['--import', 'tsx', child], { encoding: 'utf8' });
    expect(JSON.parse(result.stdout || '{}'), result.stderr).toEqual({ replies: ['fine', 'again'], asked: 1 });
  });
});
