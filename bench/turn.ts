/**
 * The overhead of a turn: `Conversation.send` through `openaiChatModel` and the real `openai`
 * client to the local protocol server (in this process), against the bare
 * `client.chat.completions.create` call with the very request body the turn sent, at 1k and 100k
 * stored messages. Both run in the same rounds, alternating which goes first.
 * @module
 */
import OpenAI from 'openai';
import { Message } from '../src/message/message.js';
import { openaiChatModel } from '../src/models/openai-chat.js';
import type { ChatModel } from '../src/models/types.js';
import { Conversation } from '../src/runtime/conversation.js';
import { Session } from '../src/session/session.js';
import type { SessionStore } from '../src/store/session-store-types.js';
import { startProtocolServer, type ProtocolServer } from '../test/support/protocol-server.js';
import {
  formatCount,
  formatMs,
  formatRatio,
  median,
  pairedRatio,
  verdict,
  type SuiteReport,
  type Table,
} from './harness.js';
import { benchHistory } from './histories.js';
import { collectGarbage, now, openBenchStore, type BenchStore } from './store-fixtures.js';

/** The history the model is sent per call with a window: the newest whole turns within this many tokens. */
const WINDOW_TOKENS = 16_000;

/** One measured setup: stored messages (the corpus's system prompt becomes the agent's), the window, the target. */
interface Case {
  readonly size: number;
  readonly window: number | undefined;
  readonly target: number;
}

const CASES: readonly Case[] = [
  { size: 1_000, window: undefined, target: 1.2 },
  { size: 1_000, window: WINDOW_TOKENS, target: 1.2 },
  { size: 100_000, window: WINDOW_TOKENS, target: 1.5 },
];
const WARMUP = 8;
const ROUNDS = 41;
/**
 * Turns run on a throwaway session of each store before any case, windowed and whole: a
 * long-running process has run its turn path thousands of times, and V8 optimizes it only after
 * some hundreds (a store's commit path included).
 */
const WARMUP_TURNS = { windowed: 400, whole: 40 };

/** The recorded Chat Completions answer every request gets. */
const ANSWER = {
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1741569952,
  model: 'gpt-4.1-2025-04-14',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Here is a short answer to that question.',
        refusal: null,
        annotations: [],
      },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 15_000,
    completion_tokens: 9,
    total_tokens: 15_009,
    prompt_tokens_details: { cached_tokens: 14_000, audio_tokens: 0 },
  },
  service_tier: 'default',
  system_fingerprint: 'fp_bench',
};

interface CaseResult {
  readonly case: Case;
  readonly sentMessages: number;
  readonly turn: number[];
  readonly bare: number[];
  /** Time inside `model.complete` (the adapter: formats, client, HTTP) per turn. */
  readonly model: number[];
}

/** `model` with the time spent in `complete` added to `spent`. */
function timedModel(model: ChatModel, spent: { ms: number }): ChatModel {
  return {
    provider: model.provider,
    model: model.model,
    async complete(request) {
      const start = now();
      try {
        return await model.complete(request);
      } finally {
        spent.ms += now() - start;
      }
    },
  };
}

async function measureCase(
  store: SessionStore,
  server: ProtocolServer,
  client: OpenAI,
  setup: Case,
): Promise<CaseResult> {
  const { size } = setup;
  const history = benchHistory(size + 1).messages;
  const system = Message.text(history[0] as Message);
  const id = `turn-${size}-${setup.window ?? 'whole'}`;
  await store.save(Session.create({ id, agentId: 'bench', messages: history.slice(1) }));
  const spent = { ms: 0 };
  const model = timedModel(openaiChatModel({ client, model: 'gpt-4.1' }), spent);
  const conversation = new Conversation({
    store,
    agents: { id: 'bench', model, system },
    ...(setup.window === undefined ? {} : { contextWindow: setup.window }),
  });
  const result: CaseResult = { case: setup, sentMessages: 0, turn: [], bare: [], model: [] };
  let body: unknown;
  let sentMessages = 0;
  const turn = async (): Promise<number> => {
    server.requests.length = 0;
    spent.ms = 0;
    const start = now();
    await conversation.send(id, 'Could you summarise where we are, and what is left to do?');
    const elapsed = now() - start;
    body = server.requests[0]?.body;
    sentMessages = (body as { messages: unknown[] }).messages.length;
    return elapsed;
  };
  const bare = async (): Promise<number> => {
    server.requests.length = 0;
    const start = now();
    await client.chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
    return now() - start;
  };
  try {
    // The first turn loads the session into the conversation's cache (a process keeps it between turns).
    await turn();
    collectGarbage();
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      let turnMs: number;
      let bareMs: number;
      if (round % 2 === 0) {
        turnMs = await turn();
        bareMs = await bare();
      } else {
        bareMs = await bare();
        turnMs = await turn();
      }
      if (round < WARMUP) continue;
      result.turn.push(turnMs);
      result.bare.push(bareMs);
      result.model.push(spent.ms);
    }
  } finally {
    await conversation.close();
  }
  return { ...result, sentMessages };
}

/** Runs `WARMUP_TURNS` on a throwaway 1k-message session of `store`. */
async function warmUp(store: SessionStore, client: OpenAI): Promise<void> {
  const history = benchHistory(1_001).messages;
  const model = openaiChatModel({ client, model: 'gpt-4.1' });
  for (const [kind, turns] of Object.entries(WARMUP_TURNS)) {
    const id = `turn-warmup-${kind}`;
    await store.save(Session.create({ id, agentId: 'bench', messages: history.slice(1) }));
    const conversation = new Conversation({
      store,
      agents: { id: 'bench', model, system: Message.text(history[0] as Message) },
      ...(kind === 'windowed' ? { contextWindow: WINDOW_TOKENS } : {}),
    });
    try {
      for (let turn = 0; turn < turns; turn++) await conversation.send(id, 'Warming up: what is left to do?');
    } finally {
      await conversation.close();
    }
    await store.delete(id);
  }
}

async function measureStore(opened: BenchStore, server: ProtocolServer, client: OpenAI): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  try {
    await warmUp(opened.store, client);
    for (const setup of CASES) results.push(await measureCase(opened.store, server, client, setup));
  } finally {
    await opened.dispose();
  }
  return results;
}

/** Runs the turn-overhead bench. */
export async function runTurnBench(): Promise<SuiteReport> {
  const server = await startProtocolServer();
  server.respondWith(() => ({ body: ANSWER }));
  // One retry: after the long setup of a 100k session the server may have closed the idle
  // keep-alive connection the client reuses (ECONNRESET); the timed rounds have no such gaps.
  const client = new OpenAI({ apiKey: 'bench', baseURL: `${server.url}/v1`, maxRetries: 1 });
  const rows: string[][] = [];
  const breakdown: string[][] = [];
  const notes: string[] = [];
  try {
    for (const kind of ['memory', 'sqlite'] as const) {
      const opened = await openBenchStore(kind, 'turn');
      if (typeof opened === 'string') {
        notes.push(`${kind}: not run (${opened}).`);
        continue;
      }
      for (const result of await measureStore(opened, server, client)) {
        const ratio = pairedRatio(result.turn, result.bare);
        const { size, window, target } = result.case;
        const turn = median(result.turn);
        const model = median(result.model);
        rows.push([
          kind === 'memory' ? 'memory' : 'SQLite',
          formatCount(size),
          window === undefined ? 'whole history' : `${formatCount(window)} tokens`,
          formatCount(result.sentMessages),
          formatMs(median(result.bare)),
          formatMs(turn),
          formatRatio(ratio),
          `≤ ${target}×: ${verdict(ratio <= target)}`,
        ]);
        breakdown.push([
          kind === 'memory' ? 'memory' : 'SQLite',
          formatCount(size),
          window === undefined ? 'whole history' : `${formatCount(window)} tokens`,
          formatMs(model),
          formatMs(turn - model),
        ]);
      }
    }
  } finally {
    await server.close();
  }
  const tables: Table[] = [
    {
      title: `Turn overhead: \`Conversation.send\` (openaiChatModel → openai client → local protocol server) against the bare \`client.chat.completions.create\` with the same request body; median of ${ROUNDS} rounds after ${WARMUP} warm-ups`,
      headers: [
        'Store',
        'Stored messages',
        'Context window',
        'Messages sent',
        'Bare client call',
        'Turn',
        'Turn ÷ bare (paired)',
        'Target',
      ],
      rows,
    },
    {
      title:
        'Where a turn’s time goes (medians): inside `model.complete` (formats.openaiChat.to, the client, HTTP, reading the answer) and outside it (load from the cache, context window, system prompt, one atomic append with the new state)',
      headers: ['Store', 'Stored messages', 'Context window', 'Model call', 'Runtime around it'],
      rows: breakdown,
    },
  ];
  notes.push(
    `Each round runs one turn (a user message and a plain text answer, appended in one \`store.append\`) and one bare call with the request body that turn sent, alternating which goes first; the ratio is the median of the per-round ratios. The session grows by 2 messages per turn.`,
    `With a context window of ${formatCount(WINDOW_TOKENS)} tokens (the newest whole turns, by \`tokens.estimate\`) both sizes send about the same request: what a turn costs beyond the bare call is the runtime's, and it must not grow with the session. Without one the whole 1k-message history (about 160k tokens) is sent, and the turn records the measured usage with its messages. The session is loaded once, by the first turn, into the conversation's \`SessionManager\` cache, as a long-running process keeps it. Before its cases each store ran ${formatCount(WARMUP_TURNS.windowed)} windowed and ${formatCount(WARMUP_TURNS.whole)} whole-history turns on a throwaway session, as a long-running process has (earlier runs warmed up with 8 turns per case only).`,
    'A `Session` holds its history as a persistent `MessageLog`: sessions that extend one another share one append-only array, so the session a commit makes costs what the turn added, not a copy of the history (before, that copy of 100k references was about 0.8 ms of each 100k turn). With a window the measured usage describes the window, not a prefix of the session, and is not recorded. The window reads per-message facts (pinned, start of a user turn, token count) from typed arrays that the continued histories of a session share, extended by what each turn added; it visits only the messages it sends.',
    'The protocol server runs in this process and answers every request with the same recorded Chat Completions body; the client has `maxRetries: 1` (for a keep-alive connection the server closed during the setup of a session; no timed round retried). SQLite commits each turn durably (WAL, `synchronous=FULL`), so its rows include an fsync the bare call does not make.',
  );
  return { name: 'turn', title: 'Turn overhead', tables, notes };
}
