/**
 * The context a long agent conversation sends (issue 22): 200-turn tool-heavy conversations through
 * `Conversation` with `openaiChatModel` and the real `openai` client, against the provider
 * simulator (test/support/provider-simulator.ts: its own `o200k_base` count, OpenAI's real 400
 * `context_length_exceeded` body over the limit, OpenAI's automatic prefix cache), at limits of
 * 8k, 32k and 128k tokens, for each configuration a user may choose. It reports failed turns, the
 * cached share of prompt tokens, the prompt tokens sent against the least that holds the window's
 * content, model calls and the calls overflow wasted, and what a user pays.
 * @module
 */
import OpenAI from 'openai';
import { tokenLimit } from '../src/compaction/token-limit.js';
import { recommendedContext } from '../src/runtime/context-options.js';
import { openaiChat } from '../src/formats/openai-chat.js';
import type { Message } from '../src/message/message.js';
import { openaiChatModel } from '../src/models/openai-chat.js';
import type { ChatModel, ChatRequest } from '../src/models/types.js';
import { Conversation } from '../src/runtime/conversation.js';
import type { ConversationOptions } from '../src/runtime/conversation-options.js';
import { memoryStore } from '../src/stores/memory.js';
import { startProtocolServer } from '../test/support/protocol-server.js';
import {
  SIMULATED_CONTEXT_LIMITS,
  documentText,
  documentTool,
  providerSimulator,
  type ProviderSimulator,
} from '../test/support/provider-simulator.js';
import { formatCount, formatMs, formatRatio, type SuiteReport, type Table } from './harness.js';
import { now } from './store-fixtures.js';

/** Turns per conversation. */
const TURNS = 200;
/** The turn whose first tool output is larger than the whole window (1.5 × the limit). */
const HUGE_TURN = 120;
const HUGE_QUERY = 'read the whole build log';

/**
 * Published prices of gpt-4.1 in USD per million tokens, as of 2026-11-28: OpenAI's pricing page
 * (https://developers.openai.com/api/docs/pricing), also listed by GitHub's Copilot pricing table
 * (github/docs `data/tables/copilot/models-and-pricing.yml`: input $2.00, cached input $0.50,
 * output $8.00). Refused requests are not billed.
 */
const PRICES = { model: 'gpt-4.1', date: '2026-11-28', input: 2.0, cachedInput: 0.5, output: 8.0 } as const;

/** The simulated models, by their limit. */
const LIMITS = [
  { model: 'sim-8k', label: '8k' },
  { model: 'sim-32k', label: '32k' },
  { model: 'sim-128k', label: '128k' },
] as const;

/** One configuration a user may choose: the Conversation options it sets at a limit. */
interface Configuration {
  readonly name: string;
  readonly options: (limit: number, model: string) => Partial<ConversationOptions>;
}

const CONFIGURATIONS: readonly Configuration[] = [
  { name: 'nothing configured (whole history)', options: () => ({}) },
  { name: '`contextWindow: limit`', options: (limit) => ({ contextWindow: limit }) },
  {
    name: '`tokenLimit(limit → 0.5 × limit)`',
    options: (limit) => ({ compactor: tokenLimit({ maxTokens: limit, targetTokens: Math.floor(limit / 2) }) }),
  },
  {
    name: '`tokenLimit(0.8 × limit → 0.5 × limit)` + `contextWindow: limit`',
    options: (limit) => ({
      compactor: tokenLimit({ maxTokens: Math.floor(0.8 * limit), targetTokens: Math.floor(limit / 2) }),
      contextWindow: limit,
    }),
  },
  {
    name: 'recommended default (`recommendedContext()`)',
    // The simulated models are not in the table of common models: their windows are given as a user of an unlisted model would.
    options: (limit, model) =>
      recommendedContext({ models: { [model]: { contextTokens: limit, maxOutputTokens: 4096 } } }),
  },
];

const SYSTEM = `You are a careful engineering assistant working on a TypeScript code base. Read the documents you need with the read_document tool before you answer, and answer briefly. Project notes follow.\n${documentText(2026, 400)}`;

const QUESTIONS = [
  'what does the session store keep after a crash?',
  'why did the last compaction drop the tool results?',
  'which routes of the HTTP API need an API key?',
  'how are usage totals computed for a continued session?',
  'what changed in the file driver since last week?',
  'where is the retry of a rate-limited call decided?',
  'which tests cover the Redis cluster store?',
  'how does the web browser page through a long session?',
  'what does the importer do with a damaged line?',
  'how is a tool call paired with its result?',
];

function userText(turn: number): string {
  if (turn === HUGE_TURN) return `Turn ${turn}: ${HUGE_QUERY} and tell me what failed.`;
  return `Turn ${turn}: ${QUESTIONS[turn % QUESTIONS.length]}`;
}

/** What one conversation measured. */
interface RunResult {
  readonly failed: number;
  /** Failed turns by error code. */
  readonly failures: ReadonlyMap<string, number>;
  readonly calls: number;
  readonly overflowCalls: number;
  /** Over the answered calls (a refused request is not billed): by the simulator's count. */
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly outputTokens: number;
  /** Σ over the answered calls of the least prompt that holds the window's content (see the notes). */
  readonly referenceTokens: number;
  /** The most any window could get from the cache on this conversation (see `cacheCeiling`). */
  readonly ceiling: number | undefined;
  readonly elapsedMs: number;
}

function isUserTurn(message: Message): boolean {
  return message.role === 'user' && message.category === 'dialog';
}

/**
 * The most of its prompt tokens any window (not only chatstate's) could read from a prefix cache on
 * a conversation that adds `d` tokens a turn (each sent uncached at least once) in `n` calls a turn,
 * under a limit of `limit` tokens with a system prompt and tools of `S`. Between two moves of the
 * window's start the content after the system prompt grows from `L` to at most `H = limit − S`;
 * a move makes all of it uncached once. A cycle adding x = H − L tokens takes x/d turns, sends
 * about n·(x/d)·(S + L + x/2) prompt tokens and L + x uncached ones: the uncached share
 * d·H / (n·x·(S + H − x/2)) is least at x = H (L = 0), which gives 2d / (n·(S + limit)). An upper
 * bound: it lets every prompt reach the limit and leaves no room for the turn in flight.
 */
function cacheCeiling(perTurn: number, callsPerTurn: number, systemTokens: number, limit: number): number {
  return Math.max(0, 1 - (2 * perTurn) / (callsPerTurn * (systemTokens + limit)));
}

/** The simulator's count of `messages` as Chat Completions sends them. */
function wireTokens(simulator: ProviderSimulator, messages: readonly Message[]): number {
  let sum = 0;
  for (const message of openaiChat.to(messages).messages)
    sum += simulator.countChatMessage(message as unknown as Record<string, unknown>);
  return sum;
}

/** The simulator's count of `request`'s system prompt and tools. */
function systemTokensOf(simulator: ProviderSimulator, request: ChatRequest): number {
  const system = typeof request.system === 'string' ? [{ role: 'system', content: request.system }] : [];
  const tools = (request.tools ?? []).map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
  return simulator.countChat({ messages: system, tools });
}

/**
 * The least prompt that holds the window's content, for one call: the system prompt and tools, the
 * turn so far, and the newest earlier whole turns of the conversation (every stored turn, never
 * compacted) that fit the limit, all by the simulator's count.
 */
function referenceOf(
  simulator: ProviderSimulator,
  request: ChatRequest,
  turns: readonly number[],
  limit: number,
): number {
  let sum = systemTokensOf(simulator, request);
  let start = request.messages.length - 1;
  while (start > 0 && !isUserTurn(request.messages[start] as Message)) start--;
  sum += wireTokens(simulator, request.messages.slice(start));
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i] as number;
    if (sum + turn > limit) break;
    sum += turn;
  }
  return sum;
}

async function runConversation(
  client: OpenAI,
  simulator: ProviderSimulator,
  modelId: string,
  configuration: Configuration,
): Promise<RunResult> {
  const limit = simulator.limitOf(modelId);
  const inner = openaiChatModel({ client, model: modelId });
  // The simulator's count of each stored turn, oldest first: what the reference may hold.
  const turns: number[] = [];
  let referenceTokens = 0;
  let systemTokens = 0;
  const model: ChatModel = {
    provider: inner.provider,
    model: inner.model,
    async complete(request) {
      const reference = referenceOf(simulator, request, turns, limit);
      systemTokens = systemTokensOf(simulator, request);
      const response = await inner.complete(request);
      referenceTokens += reference;
      return response;
    },
  };
  const tool = documentTool({
    huge: { tokens: Math.floor(1.5 * limit), when: (query, part) => query.includes(HUGE_QUERY) && part === 1 },
  });
  const store = memoryStore();
  const conversation = new Conversation({
    store,
    agents: { id: 'agent', model, system: SYSTEM, tools: [tool] },
    ...configuration.options(limit, modelId),
  });
  const failures = new Map<string, number>();
  let failed = 0;
  const start = now();
  try {
    for (let turn = 1; turn <= TURNS; turn++) {
      try {
        const result = await conversation.send('context-bench', userText(turn));
        turns.push(wireTokens(simulator, result.messages));
      } catch (error) {
        // Like a user who gives up on that message and writes the next one.
        failed += 1;
        const code = (error as { code?: unknown }).code;
        const key = typeof code === 'string' ? code : 'other';
        failures.set(key, (failures.get(key) ?? 0) + 1);
      }
    }
  } finally {
    await conversation.close();
    await store.close();
  }
  const answered = simulator.records.filter((record) => !record.overflow);
  const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
  return {
    failed,
    failures,
    calls: simulator.records.length,
    overflowCalls: simulator.records.length - answered.length,
    promptTokens: sum(answered.map((record) => record.promptTokens)),
    cachedTokens: sum(answered.map((record) => record.cachedTokens)),
    outputTokens: sum(answered.map((record) => record.outputTokens)),
    referenceTokens,
    // Turns as the tool gave them: the one output larger than the whole window is left out (no window holds it).
    ...ceilingOf(
      turns.filter((tokens) => tokens < limit),
      answered.length,
      failed,
      systemTokens,
      limit,
    ),
    elapsedMs: now() - start,
  };
}

/** `cacheCeiling` for a conversation's stored turns (by the simulator's count) and answered calls. */
function ceilingOf(
  turns: readonly number[],
  answeredCalls: number,
  failed: number,
  systemTokens: number,
  limit: number,
): { ceiling: number | undefined } {
  // A failed turn adds nothing, so the bound says nothing of a conversation that lost turns.
  if (failed > 0 || turns.length === 0) return { ceiling: undefined };
  const perTurn = turns.reduce((a, b) => a + b, 0) / turns.length;
  return { ceiling: cacheCeiling(perTurn, answeredCalls / TURNS, systemTokens, limit) };
}

function costOf(result: RunResult): number {
  const uncached = result.promptTokens - result.cachedTokens;
  return (
    (uncached * PRICES.input + result.cachedTokens * PRICES.cachedInput + result.outputTokens * PRICES.output) / 1e6
  );
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`;
}

/** Runs the context bench. */
export async function runContextBench(): Promise<SuiteReport> {
  const server = await startProtocolServer();
  // No retries: a refused request must count once, as the provider saw it.
  const client = new OpenAI({ apiKey: 'bench', baseURL: `${server.url}/v1`, maxRetries: 0 });
  const rows: string[][] = [];
  const costs: string[][] = [];
  const times: string[] = [];
  try {
    for (const { model, label } of LIMITS) {
      for (const configuration of CONFIGURATIONS) {
        // A fresh simulator per conversation: its cache starts empty, its records are this run's.
        const simulator = providerSimulator();
        server.respondWith((request) => simulator.respond(request));
        const result = await runConversation(client, simulator, model, configuration);
        const failures = [...result.failures].map(([code, count]) => `${count} ${code}`).join(', ');
        rows.push([
          label,
          configuration.name,
          `${result.failed}/${TURNS}${failures === '' ? '' : ` (${failures})`}`,
          percent(result.cachedTokens, result.promptTokens),
          result.ceiling === undefined ? '–' : percent(result.ceiling, 1),
          formatCount(result.promptTokens / TURNS),
          result.referenceTokens === 0 ? '–' : formatRatio(result.promptTokens / result.referenceTokens),
          (result.calls / TURNS).toFixed(2),
          formatCount(result.overflowCalls),
        ]);
        costs.push([
          label,
          configuration.name,
          formatCount(result.promptTokens),
          formatCount(result.cachedTokens),
          formatCount(result.outputTokens),
          `$${costOf(result).toFixed(2)}`,
        ]);
        times.push(`${label} ${configuration.name}: ${formatMs(result.elapsedMs)}`);
      }
    }
  } finally {
    await server.close();
  }
  const tables: Table[] = [
    {
      title: `Context over ${TURNS} tool-heavy turns: \`Conversation\` → openaiChatModel → openai client → provider simulator (its own o200k_base count, OpenAI's 400 \`context_length_exceeded\` over the limit, automatic prefix cache)`,
      headers: [
        'Limit',
        'Configuration',
        'Failed turns',
        'Cached share of prompt tokens',
        'Most any window could cache',
        'Prompt tokens / turn',
        '÷ least that holds the window',
        'Model calls / turn',
        'Calls refused for overflow',
      ],
      rows,
    },
    {
      title: `What a user pays: answered calls only, at ${PRICES.model}'s published prices of ${PRICES.date} ($${PRICES.input.toFixed(2)} input, $${PRICES.cachedInput.toFixed(2)} cached input, $${PRICES.output.toFixed(2)} output per million tokens)`,
      headers: ['Limit', 'Configuration', 'Prompt tokens', 'Cached tokens', 'Output tokens', 'Estimated cost'],
      rows: costs,
    },
  ];
  const notes = [
    `Each conversation runs ${TURNS} turns on a fresh memory store and a fresh simulator (empty cache). The model is \`sim-8k\`, \`sim-32k\` or \`sim-128k\` (limits ${Object.values(SIMULATED_CONTEXT_LIMITS).map(formatCount).join(', ')} tokens); the configuration's \`limit\` is that number. For every user message the simulated agent calls \`read_document\` for 2–3 sequential rounds (drawn from the message, seeded), then answers in text; each output is 300–1,300 tokens of prose, code and JSON lines, and turn ${HUGE_TURN}'s first output is 1.5 × the limit (larger than the whole window). No output limit is sent, so a prompt overflows when the simulator's count of it exceeds the limit.`,
    'A turn that throws is a failed turn (the error codes are in brackets) and the conversation goes on with the next user message, as a user retrying with a new message would; a failed turn stores nothing. "Calls refused for overflow" are requests the simulator answered with the 400 `context_length_exceeded` body: each is a model call that bought nothing (they are the extra calls overflow costs). A conversation whose every turn fails resends the same history each time, so its cached share is high and means nothing.',
    "Prompt tokens are the simulator's count of the answered calls (what the provider bills and reports as `prompt_tokens`); the cached share is its `cached_tokens` over them: OpenAI's automatic prefix caching, prompts of 1,024 tokens or more, the longest prefix shared with any earlier prompt (system, tools, then the messages in order) in 128-token steps, with no expiry.",
    "\"Most any window could cache\" is an upper bound on the cached share of any way of choosing what to send (not only chatstate's) on the same conversation, from its measured figures: each turn adds d tokens (the stored turns' mean by the simulator's count, the one output larger than the window left out) that must be sent uncached once, in n answered calls a turn, under the limit with S tokens of system prompt and tools. Between two moves of the window's start the prompt grows to at most the limit, and a move leaves everything after the system prompt uncached once; the best cycle then grows from nothing to the limit, and the uncached share is at least 2d / (n × (S + limit)). The bound lets every prompt reach the limit and keeps no room for the turn in flight, so no window reaches it. It is – where turns failed.",
    '"÷ least that holds the window" is the prompt tokens sent over the sum, for the same answered calls, of the least prompt that holds the window\'s content: the system prompt and tools, the turn so far, and the newest earlier whole turns of the conversation (every turn that succeeded, never compacted) that fit the limit, all by the simulator\'s count. A configuration that sends the newest turns up to the limit scores about 1×; one that cuts to a lower mark scores below 1× between cuts; a whole history over the limit is refused and counts nothing.',
    `Time per conversation: ${times.join('; ')}.`,
  ];
  return {
    name: 'context',
    title: 'Context: failed turns, prompt cache and cost over long agent conversations',
    tables,
    notes,
  };
}
