/**
 * Tail edits at 4,000 messages on every store (issue 25): an OpenAI Agents `addItems` of one item
 * (an append), its `popItem`, and an AI SDK `saveChat` that regenerates the last assistant message
 * (over the messages `loadChat` gave, as the AI SDK's server pattern passes them back, and over the
 * same list parsed from JSON, as a client sends it), each timed in the same rounds so the ratios to
 * the append compare like with like. Target: the pop and the regenerate at most 3× the append.
 * @module
 */
import type { AgentInputItem } from '@openai/agents-core';
import type { UIMessage } from 'ai';
import { createChatStore } from '../src/adapters/ai-sdk/chat-store.js';
import { chatstateSession } from '../src/adapters/openai-agents/session.js';
import { Message } from '../src/message/message.js';
import { Session } from '../src/session/session.js';
import { formatMs, formatRatio, median, pairedRatio, type SuiteReport, type Table } from './harness.js';
import { STORE_KINDS, appendMessage, now, openBenchStore, warmUp } from './store-fixtures.js';

/** Messages in each session before the timed rounds. */
const SIZE = 4_000;
/** Rounds timed (each: one append, one pop, one regenerate), after `WARMUP` untimed ones. */
const ROUNDS = 40;
const WARMUP = 5;
/** Issue 25's target: a tail edit costs at most this many appends. */
const TARGET = 3;

/** A UI chat of `count` messages, user and assistant in turn, ~500 bytes of prose each. */
function uiChat(count: number): UIMessage[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `ui-${index}`,
    role: index % 2 === 0 ? 'user' : 'assistant',
    parts: [{ type: 'text', text: Message.text(appendMessage('ui', index)) }],
  }));
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = now();
  await fn();
  return now() - start;
}

/** Runs the suite. */
export async function runTailEditsBench(): Promise<SuiteReport> {
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const kind of STORE_KINDS) {
    if (kind === 'file' || kind === 'sqlite') await warmUp(kind);
    const opened = await openBenchStore(kind, 'tail');
    if (typeof opened === 'string') {
      notes.push(`${kind}: not measured (${opened}).`);
      continue;
    }
    try {
      const { store } = opened;
      const agentsId = 'tail-agents';
      await store.save(
        Session.create({
          id: agentsId,
          messages: Array.from({ length: SIZE }, (_, index) => appendMessage('prefill', index)),
        }),
      );
      const agents = chatstateSession({ store, sessionId: agentsId });
      const chats = createChatStore({ store });
      const chatId = 'tail-chat';
      const chat = uiChat(SIZE);
      await chats.saveChat({ id: chatId, messages: chat });
      // A client saves over the version it holds (from `getChat`, then from each save's result).
      let version = (await chats.getChat(chatId))?.version ?? 0;
      await opened.analyze?.();
      const appends: number[] = [];
      const pops: number[] = [];
      const regenerates: number[] = [];
      const fromJson: number[] = [];
      const edits: number[] = [];
      for (let round = 0; round < WARMUP + ROUNDS; round++) {
        const item: AgentInputItem = { role: 'user', content: `round ${round}: one more question` };
        const append = await time(() => agents.addItems([item]));
        const pop = await time(() => agents.popItem());
        // The route's `loadChat` (untimed), then `onFinish`'s save of those messages with a new answer.
        const loaded = await chats.loadChat(chatId);
        const answer = (label: string): UIMessage => ({
          id: `${label}-${round}`,
          role: 'assistant',
          parts: [{ type: 'text', text: `regenerated answer ${round}` }],
        });
        const regenerated: UIMessage[] = [...loaded.slice(0, -1), answer('regen')];
        const regenerate = await time(async () => {
          version = (await chats.commitChat({ id: chatId, messages: regenerated, expectedVersion: version })).version;
        });
        // The same over a list that came as JSON: no message is one the chat store handed out.
        const parsed = JSON.parse(JSON.stringify([...regenerated.slice(0, -1), answer('json')])) as UIMessage[];
        const regenerateJson = await time(async () => {
          version = (await chats.commitChat({ id: chatId, messages: parsed, expectedVersion: version })).version;
        });
        // The store's own part of a regenerate: the last message read and replaced on the version read.
        const storeEdit = await time(async () => {
          const row = await store.summary(agentsId);
          const [last] = await store.readMessages(agentsId, { limit: 1 });
          if (row === undefined || last?.seq === undefined || store.replaceTail === undefined)
            throw new Error('no tail');
          await store.replaceTail(agentsId, {
            afterSeq: last.seq - 1,
            messages: [Message.assistant(`edited ${round}`, { id: `edited-${round}` })],
            expectedVersion: row.version,
          });
        });
        if (round < WARMUP) continue;
        edits.push(storeEdit);
        appends.push(append);
        pops.push(pop);
        regenerates.push(regenerate);
        fromJson.push(regenerateJson);
      }
      const stored = await store.summary(agentsId);
      const editRatio = pairedRatio(edits, appends);
      if (stored?.messageCount !== SIZE) throw new Error(`${kind}: the Agents session has ${stored?.messageCount}`);
      const popRatio = pairedRatio(pops, appends);
      const regenRatio = pairedRatio(regenerates, appends);
      const jsonRatio = pairedRatio(fromJson, appends);
      rows.push([
        kind,
        formatMs(median(appends)),
        formatMs(median(pops)),
        formatRatio(popRatio),
        formatMs(median(regenerates)),
        formatRatio(regenRatio),
        formatMs(median(fromJson)),
        formatRatio(jsonRatio),
        formatMs(median(edits)),
        formatRatio(editRatio),
        [popRatio, regenRatio, editRatio].map((ratio) => (ratio <= TARGET ? 'met' : 'missed')).join(' / '),
      ]);
    } finally {
      await opened.dispose();
    }
  }
  const table: Table = {
    title: `Tail edits at ${SIZE.toLocaleString('en-US')} messages (median of ${ROUNDS} rounds; ratio: median of per-round ratios to the append)`,
    headers: [
      'store',
      'append (addItems, 1 item)',
      'popItem',
      '÷ append',
      'regenerate (saveChat of loaded messages)',
      '÷ append',
      'regenerate, messages from JSON',
      '÷ append',
      'last message replaced (store)',
      '÷ append',
      `≤ ${TARGET}× (pop / saveChat / store)`,
    ],
    rows,
  };
  notes.unshift(
    'Each round times, one after the other on the same store: an OpenAI Agents `addItems` of one item, the `popItem` that removes it, and two AI SDK `saveChat`s of the whole 4,000-message list with its last assistant message regenerated (a new id and text): first over the messages `loadChat` gave just before (untimed), as the AI SDK server pattern passes them back through `toUIMessageStreamResponse({ originalMessages, onFinish })`; then over the same list parsed from JSON, as a client sends it.',
    "The store column is the store's part of a regenerate or an edit alone: `summary`, `readMessages({ limit: 1 })` and `replaceTail` of the last message. The chat store recognises the deep-frozen messages it handed out by identity (one pointer compare each); a list from JSON is read message by message, each compared with the stored message at its place without being copied (CPU in proportion to the chat, not store I/O).",
    '`popItem` reads the head and the last message and replaces it with `store.replaceTail`; the regenerate plans over the chat the chat store last read or wrote (one head read checks its version) and writes the changed tail with `store.replaceTail`. The file store writes a tail replace as one journal record, as an append.',
  );
  return { name: 'tail-edits', title: 'Tail edits (issue 25)', tables: [table], notes };
}
