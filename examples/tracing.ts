/**
 * `npx tsx examples/tracing.ts`: what chatstate reports to OpenTelemetry, printed as a tree. It
 * registers the OTel SDK (a `BasicTracerProvider` with an in-memory exporter; an app would use
 * `NodeSDK` with an OTLP exporter), runs two turns of an agent with a tool on a SQLite store in a
 * temporary directory — the first creates the session, the second appends to it — and prints each
 * turn's spans with their durations and the GenAI attributes worth a look. No network, no model:
 * a scripted stand-in answers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { Message } from '../src/message/message.js';
import { Conversation } from '../src/runtime/conversation.js';
import type { ChatModel } from '../src/models/types.js';
import { sqliteStore } from '../src/stores/sqlite/index.js';

const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));

// Asks for its tool once per turn (a fresh call id each time), then answers with what it got.
let calls = 0;
const model: ChatModel = {
  provider: 'anthropic',
  model: 'demo-model',
  async complete({ messages }) {
    const last = messages.at(-1);
    const usage = { inputTokens: 400 + 40 * messages.length, outputTokens: 12, cachedInputTokens: 380 };
    if (last?.role === 'tool')
      return { message: Message.assistant(`Noted: ${Message.text(last)}`), usage, finishReason: 'stop' };
    calls += 1;
    const toolCalls = [{ id: `toolu_${calls}`, name: 'clock', arguments: '{}' }];
    return { message: Message.assistant('', { toolCalls }), usage, finishReason: 'tool_calls' };
  },
};

const dir = mkdtempSync(join(tmpdir(), 'chatstate-tracing-'));
const store = await sqliteStore(join(dir, 'chatstate.db'));
const conversation = new Conversation({
  store,
  agents: { id: 'helper', model, tools: [{ name: 'clock', execute: () => '12:00 UTC' }] },
});
await conversation.send('support-42', 'What time is it?');
await conversation.send('support-42', 'And now?');
await conversation.close();

/** The attributes printed beside a span's name, when it has them. */
const SHOWN: ReadonlyArray<readonly [string, string]> = [
  ['gen_ai.conversation.id', 'conversation'],
  ['session.id', 'session'],
  ['gen_ai.tool.call.id', 'call'],
  ['gen_ai.response.finish_reasons', 'finish'],
  ['gen_ai.usage.input_tokens', 'in'],
  ['gen_ai.usage.cache_read.input_tokens', 'cached'],
  ['gen_ai.usage.output_tokens', 'out'],
  ['chatstate.store.name', 'store'],
];

const spans = exporter.getFinishedSpans();
const childrenOf = (parent: ReadableSpan | undefined): ReadableSpan[] =>
  spans
    .filter((span) =>
      parent === undefined
        ? span.parentSpanContext === undefined
        : span.parentSpanContext?.spanId === parent.spanContext().spanId,
    )
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);

function print(span: ReadableSpan, prefix: string, last: boolean, root: boolean): void {
  const ms = (span.duration[0] * 1e3 + span.duration[1] / 1e6).toFixed(1);
  const shown = SHOWN.flatMap(([key, label]) => {
    const value = span.attributes[key];
    return value === undefined ? [] : [`${label}=${Array.isArray(value) ? value.join(',') : String(value)}`];
  });
  console.log(
    `${prefix}${root ? '' : last ? '└─ ' : '├─ '}${span.name} (${ms} ms)${shown.length > 0 ? `  ${shown.join(' ')}` : ''}`,
  );
  const children = childrenOf(span);
  children.forEach((child, index) =>
    print(child, root ? '' : `${prefix}${last ? '   ' : '│  '}`, index === children.length - 1, false),
  );
}

for (const turn of childrenOf(undefined)) print(turn, '', true, true);
rmSync(dir, { recursive: true, force: true });
