/**
 * Sessions for the web session browser's tests, screenshots and benchmark, made with the library
 * itself: a research session with tool calls, two compactions and a summary, and its calls'
 * measured usage (the prompt cache cold after each compaction); a continuation chain of three; a
 * fork; a session whose content carries script payloads; and sessions of any length.
 */
import { compaction } from '../../src/compaction/index.js';
import { SessionManager } from '../../src/manager/session-manager.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';

/** Ids of the seeded sessions. */
export const SEEDED = {
  research: 'research-agent',
  fork: 'research-agent-fork',
  /** The root of a continuation chain of three (its successors get ids of the manager's). */
  chainRoot: 'support-1',
  xss: 'xss-probe',
  bob: 'bob-notes',
} as const;

/** Script payloads the XSS session carries: none may run or become an element. */
export const PAYLOADS = [
  '<script>window.__xss = "script"</script>',
  '<img src=x onerror="window.__xss = \'img\'">',
  '"><svg onload="window.__xss = \'svg\'"></svg>',
  '<iframe src="javascript:window.__xss = 1"></iframe>',
] as const;

/** The research session's turns after which it is compacted: by token limit, and (the last) by a summary. */
const TOKEN_LIMIT_AFTER = [9, 18];
const SUMMARY_AFTER = 25;

const TOPICS = ['solar panels', 'heat pumps', 'battery storage', 'grid tariffs', 'insulation', 'wind turbines'];

function toolTurn(turn: number): Message[] {
  const topic = TOPICS[turn % TOPICS.length] as string;
  const callId = `call_${turn}_a`;
  const readId = `call_${turn}_b`;
  const heavy = turn % 5 === 3;
  // The prompt cache serves what the previous call sent, unless there was none or a compaction changed it.
  const cold = turn === 0 || [...TOKEN_LIMIT_AFTER, SUMMARY_AFTER].includes(turn - 1);
  const inputTokens = 900 + turn * 150;
  const results = Array.from({ length: heavy ? 12 : 3 }, (_, i) => ({
    title: `${topic} study ${i + 1}`,
    url: `https://example.org/${topic.replace(/ /g, '-')}/${i + 1}`,
    summary: `Findings about ${topic}: efficiency ${60 + ((turn + i) % 30)}%, payback ${4 + (i % 7)} years.`,
  }));
  return [
    Message.user(`Turn ${turn + 1}: what do recent studies say about ${topic}?`),
    Message.assistant('Let me search and read the best source.', {
      toolCalls: [
        { id: callId, name: 'search_web', arguments: { query: `${topic} studies`, limit: results.length } },
        { id: readId, name: 'read_page', arguments: { url: results[0]?.url ?? '' } },
      ],
    }),
    Message.tool(callId, JSON.stringify(results), { name: 'search_web' }),
    Message.tool(readId, JSON.stringify({ url: results[0]?.url, text: `${topic} `.repeat(heavy ? 300 : 40) }), {
      name: 'read_page',
    }),
    Message.assistant(
      `Studies on ${topic} agree: ${results
        .slice(0, 2)
        .map((result) => result.summary)
        .join(' ')}`,
      {
        metadata: {
          usage: {
            model: 'gpt-4.1-mini',
            inputTokens,
            outputTokens: 120,
            cachedInputTokens: cold ? 0 : inputTokens - 150,
          },
        },
      },
    ),
  ];
}

/** Compacts stored session `id` now, as a turn's end would: read, compact, save at the version read. */
async function compactStored(store: SessionStore, id: string, compactor: Parameters<Session['compact']>[0]) {
  const session = await store.load(id);
  const { session: compacted, result } = await session.compact(compactor, { force: true });
  if (result?.compacted !== true) throw new Error(`seed: ${id} did not compact`);
  await store.save(compacted, { expectedVersion: session.version });
}

/** The research session: 30 turns with tools, appended to the store, compacted twice by token limit and once by a summary. */
async function research(store: SessionStore): Promise<void> {
  const id = SEEDED.research;
  await store.save(
    Session.create({
      id,
      userId: 'alice',
      agentId: 'researcher',
      metadata: { title: 'Energy research assistant', contextWindow: 16_000 },
      messages: [Message.system('You are a careful research assistant. Cite sources.')],
    }),
  );
  for (let turn = 0; turn < 30; turn++) {
    await store.append(id, toolTurn(turn));
    if (TOKEN_LIMIT_AFTER.includes(turn))
      await compactStored(store, id, compaction.tokenLimit({ maxTokens: 9000, targetTokens: 3000 }));
    if (turn === SUMMARY_AFTER)
      await compactStored(
        store,
        id,
        compaction.summarize({ keepTurns: 3, summarizer: (messages) => `Summary of ${messages.length} messages.` }),
      );
    // A part chatstate does not model, kept verbatim: shown as a raw part.
    if (turn === 27)
      await store.append(id, [
        Message.assistant([
          { type: 'text', text: 'A server-side tool ran at the provider:' },
          {
            type: 'raw',
            provider: 'anthropic',
            value: { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'tariffs' } },
          },
        ]),
      ]);
  }
}

/** What `seedBrowserSessions` made that has no fixed id. */
export interface Seeded {
  /** The continuation chain, root first. */
  readonly chain: readonly string[];
}

/** Seeds every session of the browser's tests into `store` (a tenant's view or a whole store). */
export async function seedBrowserSessions(store: SessionStore): Promise<Seeded> {
  const chain: string[] = [SEEDED.chainRoot];
  await research(store);
  const manager = new SessionManager({ store, autoSaveIntervalMs: false, ownsStore: false });
  try {
    // A continuation chain of three: each link continues the one before.
    const first = Session.create({
      id: SEEDED.chainRoot,
      userId: 'alice',
      agentId: 'support',
      messages: [
        Message.system('You are a support agent.'),
        Message.user('My order 1234 has not arrived.'),
        Message.assistant('I am sorry: let me look at order 1234.'),
      ],
    });
    await store.save(first);
    const second = await manager.continueSession(SEEDED.chainRoot);
    chain.push(second.id);
    await manager.append(
      second.id,
      Message.user('Any news on order 1234?'),
      Message.assistant('It left the warehouse today.'),
    );
    await manager.flush();
    const third = await manager.continueSession(second.id);
    chain.push(third.id);
    await manager.append(third.id, Message.user('It arrived, thanks!'), Message.assistant('Great news.'));
    await manager.flush();
    const source = await store.load(SEEDED.research);
    const at = source.messages[Math.floor(source.messages.length / 2)] as Message;
    await manager.fork(SEEDED.research, { atMessageId: at.id, id: SEEDED.fork });
  } finally {
    await manager.close();
  }
  await store.save(
    Session.create({
      id: SEEDED.xss,
      userId: 'alice',
      agentId: 'researcher',
      messages: [
        Message.user(`Check this: ${PAYLOADS[0]}`),
        Message.assistant(`Quoting it: ${PAYLOADS[1]}`, {
          toolCalls: [{ id: 'call_x', name: 'render_html', arguments: { html: PAYLOADS[2], note: PAYLOADS[3] } }],
        }),
        Message.tool('call_x', `${PAYLOADS[2]} ${PAYLOADS[3]}`, { name: 'render_html' }),
        Message.assistant([{ type: 'raw', provider: 'openaiResponses', value: { html: PAYLOADS[1] } }]),
      ],
    }),
  );
  await store.save(
    Session.create({
      id: SEEDED.bob,
      userId: 'bob',
      agentId: 'notes',
      messages: [Message.user('Remind me to water the plants.'), Message.assistant('Noted.')],
    }),
  );
  return { chain };
}

/**
 * A session of `count` messages (user and assistant, every fifth turn with a tool call), appended
 * in batches: stores keep an append's cost flat, so a 100k-message session takes seconds.
 */
export async function seedLongSession(store: SessionStore, id: string, count: number): Promise<void> {
  await store.save(Session.create({ id, userId: 'alice', agentId: 'bench', messages: [Message.system('Long.')] }));
  const batch: Message[] = [];
  for (let i = 1; i < count;) {
    const turn = Math.floor(i / 4);
    if (turn % 5 === 0 && count - i >= 4) {
      const callId = `c${i}`;
      batch.push(
        Message.user(`Question ${turn}: look it up`),
        Message.assistant('', { toolCalls: [{ id: callId, name: 'lookup', arguments: { n: turn } }] }),
        Message.tool(callId, JSON.stringify({ n: turn, value: turn * 7 }), { name: 'lookup' }),
        Message.assistant(`Answer ${turn}: ${turn * 7}`),
      );
      i += 4;
    } else {
      batch.push(i % 2 === 1 ? Message.user(`Message ${i} from the user`) : Message.assistant(`Reply ${i}`));
      i += 1;
    }
    if (batch.length >= 2000) await store.append(id, batch.splice(0));
  }
  if (batch.length > 0) await store.append(id, batch.splice(0));
}
