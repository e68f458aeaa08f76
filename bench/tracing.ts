/**
 * The overhead of tracing a turn: `Conversation.send` with a tool call, with an OpenTelemetry SDK
 * registered (tracer and meter providers, in-memory exporter) against no provider at all, in the
 * same rounds, alternating which goes first. Measured with a model answering in process (the
 * runtime's own time, where tracing weighs most) and through the openai client to the local
 * protocol server (a turn as an app makes it).
 * @module
 */
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { Message } from '../src/message/message.js';
import { openaiChatModel } from '../src/models/openai-chat.js';
import type { ChatModel, ChatResponse } from '../src/models/types.js';
import { Conversation } from '../src/runtime/conversation.js';
import type { Tool } from '../src/runtime/types.js';
import { Session } from '../src/session/session.js';
import { startProtocolServer, type ProtocolServer } from '../test/support/protocol-server.js';
import { formatCount, formatMs, formatRatio, median, pairedRatio, verdict, type SuiteReport } from './harness.js';
import { benchHistory } from './histories.js';
import { collectGarbage, now, openBenchStore } from './store-fixtures.js';

/** Turns per round and setting (the first one untimed). */
const BLOCK = 11;
const WARMUP = 20;
const ROUNDS = 41;
/** Stored messages of each measured session before its first turn. */
const HISTORY = 200;
/** Most overhead a registered SDK may add to a turn (in-process model: the worst case). */
const TARGET = 1.25;

/** A pull reader: the metrics are recorded and aggregated, never exported. */
class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** An SDK the rounds switch on (registered as the globals) and off (the API's no-op). */
class Sdk {
  readonly exporter = new InMemorySpanExporter();
  private readonly tracers: BasicTracerProvider;
  private readonly meters = new MeterProvider({ readers: [new PullReader()] });

  /** `simple` exports each span as it ends; `batch` queues them, as production setups do. */
  constructor(readonly processor: 'simple' | 'batch') {
    const spanProcessor =
      processor === 'simple' ? new SimpleSpanProcessor(this.exporter) : new BatchSpanProcessor(this.exporter);
    this.tracers = new BasicTracerProvider({ spanProcessors: [spanProcessor] });
  }

  /** Hands queued spans to the exporter. */
  async flush(): Promise<void> {
    await this.tracers.forceFlush();
  }

  on(): void {
    trace.setGlobalTracerProvider(this.tracers);
    metrics.setGlobalMeterProvider(this.meters);
  }

  off(): void {
    trace.disable();
    metrics.disable();
    this.exporter.reset();
  }

  async shutdown(): Promise<void> {
    this.off();
    await this.tracers.shutdown();
    await this.meters.shutdown();
  }
}

const lookup: Tool = {
  name: 'lookup',
  description: 'Looks a word up.',
  parameters: { type: 'object', properties: { word: { type: 'string' } } },
  execute: (args) => ({ found: true, args }),
};

/** A model answering in process: a `lookup` call, then (seeing its result) a final answer; usage with cached input. */
function inProcessModel(): ChatModel {
  let calls = 0;
  return {
    provider: 'openaiChat',
    model: 'bench-model',
    async complete(request): Promise<ChatResponse> {
      calls += 1;
      const usage = { inputTokens: 1200, outputTokens: 12, cachedInputTokens: 1024 };
      if (request.messages.at(-1)?.role === 'tool')
        return { message: Message.assistant('It is there.'), usage, finishReason: 'stop' };
      const toolCalls = [{ id: `call_${calls}`, name: 'lookup', arguments: '{"word":"tracing"}' }];
      return { message: Message.assistant('', { toolCalls }), usage, finishReason: 'tool_calls' };
    },
  };
}

let completions = 0;

/** Chat Completions answers: a `lookup` call unless the last message is its result, then a final answer. */
function chatCompletion(body: unknown): unknown {
  completions += 1;
  const messages = (body as { messages?: Array<{ role?: string }> } | undefined)?.messages ?? [];
  const toolTurn = messages.at(-1)?.role !== 'tool';
  return {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1741569952,
    model: 'gpt-4.1-2025-04-14',
    choices: [
      {
        index: 0,
        message: toolTurn
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                // Unique, as a provider's are: a repeated call id is not resent as a new exchange.
                {
                  id: `call_${completions}`,
                  type: 'function',
                  function: { name: 'lookup', arguments: '{"word":"tracing"}' },
                },
              ],
            }
          : { role: 'assistant', content: 'It is there.', refusal: null },
        logprobs: null,
        finish_reason: toolTurn ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: 1200,
      completion_tokens: 12,
      total_tokens: 1212,
      prompt_tokens_details: { cached_tokens: 1024 },
    },
  };
}

interface Measured {
  readonly label: string;
  readonly off: number[];
  readonly on: number[];
  readonly spans: number;
}

/**
 * Alternating rounds of traced and untraced turns, each on its own session of `HISTORY` messages.
 * A round is a block of turns per setting; its first turn is not timed (it meets the provider just
 * registered: a new tracer and new histograms, which an app pays once, not per turn).
 */
async function measure(
  label: string,
  kind: 'memory' | 'sqlite',
  model: ChatModel,
  sdk: Sdk,
): Promise<Measured | string> {
  const opened = await openBenchStore(kind, 'tracing');
  if (typeof opened === 'string') return opened;
  const { store } = opened;
  const history = benchHistory(HISTORY + 1).messages.slice(1);
  for (const id of ['off', 'on']) await store.save(Session.create({ id, agentId: 'bench', messages: history }));
  const conversation = new Conversation({ store, agents: { id: 'bench', model, tools: [lookup] } });
  const result = { label, off: [] as number[], on: [] as number[], spans: 0 };
  const block = async (traced: boolean): Promise<number> => {
    if (traced) sdk.on();
    const times: number[] = [];
    try {
      sdk.exporter.reset();
      for (let turn = 0; turn < BLOCK; turn++) {
        const start = now();
        await conversation.send(traced ? 'on' : 'off', 'Could you look that up?');
        if (turn > 0) times.push(now() - start);
      }
      if (traced) {
        await sdk.flush();
        result.spans = Math.round(sdk.exporter.getFinishedSpans().length / BLOCK);
      }
    } finally {
      sdk.off();
    }
    return median(times);
  };
  try {
    collectGarbage();
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const first = round % 2 === 0;
      const a = await block(first);
      const b = await block(!first);
      if (round < WARMUP) continue;
      result.on.push(first ? a : b);
      result.off.push(first ? b : a);
    }
  } finally {
    await conversation.close();
    await opened.dispose();
  }
  return result;
}

/** Runs the tracing-overhead bench. */
export async function runTracingBench(): Promise<SuiteReport> {
  const server: ProtocolServer = await startProtocolServer();
  server.respondWith((request) => ({ body: chatCompletion(request.body) }));
  const client = new OpenAI({ apiKey: 'bench', baseURL: `${server.url}/v1`, maxRetries: 1 });
  const results: Measured[] = [];
  const notes: string[] = [];
  try {
    for (const [label, kind, model, processor] of [
      ['in-process model, memory store', 'memory', inProcessModel(), 'simple'],
      ['in-process model, memory store, batch processor', 'memory', inProcessModel(), 'batch'],
      ['in-process model, SQLite store', 'sqlite', inProcessModel(), 'simple'],
      ['openai client → local server, memory store', 'memory', openaiChatModel({ client, model: 'gpt-4.1' }), 'simple'],
    ] as const) {
      const sdk = new Sdk(processor);
      try {
        const measured = await measure(label, kind, model, sdk);
        if (typeof measured === 'string') notes.push(`${label}: not run (${measured}).`);
        else results.push(measured);
      } finally {
        await sdk.shutdown();
      }
    }
  } finally {
    await server.close();
  }
  const rows = results.map((result) => {
    const ratio = pairedRatio(result.on, result.off);
    const off = median(result.off);
    const on = median(result.on);
    return [
      result.label,
      formatCount(result.spans),
      formatMs(off),
      formatMs(on),
      formatMs(on - off),
      formatRatio(ratio),
      `≤ ${TARGET}×: ${verdict(ratio <= TARGET)}`,
    ];
  });
  notes.push(
    `Each turn is a user message, a \`lookup\` tool call and a final answer (two model calls), appended in one write to a session of ${formatCount(HISTORY)} stored messages (growing by 4 per turn). "Traced" registers a \`BasicTracerProvider\` with a \`SimpleSpanProcessor\` (or, where named, a \`BatchSpanProcessor\`) and an \`InMemorySpanExporter\`, and a \`MeterProvider\` with a pull reader, as the globals; "untraced" has \`@opentelemetry/api\` loaded but no provider (chatstate then starts no span and builds no attribute). Without \`@opentelemetry/api\` installed at all chatstate starts no span. No context manager is registered: chatstate nests its spans through its own \`AsyncLocalStorage\`, as it does for an app without one.`,
    `Spans per traced turn: invoke_agent, a chat span per model call, execute_tool, and a span per store operation. Each round runs ${BLOCK} turns untraced and ${BLOCK} traced (alternating which goes first) and takes the median of each block but its first turn (the first turn after an app registers a provider makes chatstate's tracer and histograms: a one-time cost); ${ROUNDS} rounds after ${WARMUP} warm-up rounds, the ratio is the median of the per-round ratios.`,
  );
  return {
    name: 'tracing',
    title: 'Tracing overhead',
    tables: [
      {
        title: 'A turn with an OpenTelemetry SDK registered against none (medians)',
        headers: [
          'Setup',
          'Spans per turn',
          'Untraced turn',
          'Traced turn',
          'Difference',
          'Traced ÷ untraced (paired)',
          'Target',
        ],
        rows,
      },
    ],
    notes,
  };
}
