/**
 * `npm start`: an agent conversation end to end, with no network. A `Conversation` runs turns over
 * the embedded file store: a scripted stand-in for a model asks for real tool functions, the
 * runtime runs them (in parallel), appends each turn atomically and durably, and compacts only
 * after a final answer. The agent remembers a preference in one session and recalls it in another.
 * Then the session is reloaded from disk, a stateless caller chats with an opaque signed blob, and
 * the history is sent through every provider format.
 */
import { join } from 'node:path';
import { KNOWLEDGE_PREFIX, knowledgeSessionId } from '../src/active-memory/index.js';
import { compaction } from '../src/compaction/index.js';
import { formats, validate } from '../src/formats/index.js';
import { Message } from '../src/message/message.js';
import { PROVIDERS, type JsonValue } from '../src/message/schema.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/models/types.js';
import { Conversation, chatWithState, recommendedContext, type Tool } from '../src/runtime/index.js';
import { openStore } from '../src/stores/open-store.js';
import { tokens } from '../src/tokens/index.js';

/** `1 message`, `2 messages`. */
const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const field = (args: JsonValue, name: string): string => String((args as Record<string, JsonValue>)[name] ?? '');

const tools: Tool[] = [
  {
    name: 'get_weather',
    description: 'The forecast for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    execute: (args) => {
      const city = field(args, 'city');
      return { city, forecast: city.length % 2 === 0 ? 'sunny' : 'light rain', highC: 10 + (city.length % 9) };
    },
  },
  {
    name: 'search_flights',
    description: 'Flights between two cities.',
    parameters: {
      type: 'object',
      properties: { from: { type: 'string' }, to: { type: 'string' } },
      required: ['from', 'to'],
    },
    execute: (args) =>
      Array.from({ length: 3 }, (_, i) => ({
        flight: `CS${100 + i * 7}`,
        from: field(args, 'from'),
        to: field(args, 'to'),
        departs: `0${7 + i * 3}:15`,
        priceEur: 89 + i * 41,
      })),
  },
  {
    name: 'convert_currency',
    description: 'Converts euros to dollars.',
    parameters: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    execute: (args) => ({
      eur: Number(field(args, 'amount')),
      usd: Math.round(Number(field(args, 'amount')) * 108) / 100,
    }),
  },
];

/**
 * A scripted stand-in for a real model (`openaiChatModel`, `anthropicModel`, `aiSdkModel` plug in
 * the same way): it asks for tools until it has their results, then answers from them.
 */
const travelModel: ChatModel = {
  provider: 'openaiChat',
  model: 'scripted-travel-model',
  async complete({ messages }: ChatRequest): Promise<ChatResponse> {
    const usage = { inputTokens: messages.length * 40, outputTokens: 30 };
    const userIndex = messages.findLastIndex((m) => m.role === 'user');
    const text = Message.text(messages[userIndex] as Message);
    const results = messages.slice(userIndex).filter((m) => m.role === 'tool');
    if (results.length > 0) {
      // Recall answers with what it found; other tools with their results.
      const found = results.map((m) =>
        m.name === 'recall'
          ? `${(JSON.parse(Message.text(m)) as Array<{ text: string; source: string }>)[0]?.text ?? 'nothing'} (best of the recalled hits)`
          : Message.text(m).slice(0, 160),
      );
      return {
        message: Message.assistant(`Here is what I found:\n${found.map((line) => `- ${line}`).join('\n')}`),
        usage,
        finishReason: 'stop',
      };
    }
    const cities = [...new Set([...text.matchAll(/\b(Paris|Lisbon|Oslo|Rome|Berlin)\b/g)].map((m) => m[1] as string))];
    const calls: Array<{ name: string; arguments: JsonValue }> = [];
    if (/weather/i.test(text)) for (const city of cities) calls.push({ name: 'get_weather', arguments: { city } });
    if (/flight/i.test(text) && cities.length >= 2)
      calls.push({ name: 'search_flights', arguments: { from: cities[0] as string, to: cities[1] as string } });
    if (/\d+ ?eur/i.test(text))
      calls.push({ name: 'convert_currency', arguments: { amount: Number(/(\d+) ?eur/i.exec(text)?.[1] ?? 0) } });
    if (/remember/i.test(text))
      calls.push({
        name: 'remember',
        arguments: { text: text.replace(/^.*?remember that I prefer /i, 'The user prefers ') },
      });
    if (/\?$/.test(text) && /\b(I|my)\b/.test(text) && calls.length === 0)
      calls.push({ name: 'recall', arguments: { query: text } });
    if (calls.length === 0)
      return {
        message: Message.assistant(`Noted: "${text}". Anything else for the trip?`),
        usage,
        finishReason: 'stop',
      };
    const toolCalls = calls.map((call, i) => ({
      id: `call_${messages.length}_${i}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    }));
    return { message: Message.assistant('Let me check.', { toolCalls }), usage, finishReason: 'tool_calls' };
  },
};

// The embedded default store: a directory of checksummed journals and snapshots. It is the
// `chatstate` command's default store (file:./.chatstate), so `npx chatstate list` and
// `npx chatstate serve` (the web session browser) show these conversations.
const directory = join(process.cwd(), '.chatstate');
const store = await openStore(`file:${directory}`);
// A rerun starts over: only this example's own sessions and values go, nothing else in the store.
const user = 'demo-user';
for (const id of ['trip-lisbon', 'trip-rome', knowledgeSessionId(user)]) await store.delete(id);
for (const owner of [
  { scope: 'user', userId: user },
  { scope: 'agent', agentId: 'travel-planner', userId: user },
] as const) {
  const values = await store.values.getAll(owner);
  await store.values.set(owner, Object.fromEntries(Object.keys(values).map((key) => [key, undefined])));
}
const conversation = new Conversation({
  store,
  agents: {
    id: 'travel-planner',
    model: travelModel,
    system: 'You are a concise travel assistant. Use tools for facts.',
    tools,
    memoryTools: true,
  },
  // Each request fits the model's context window, cut in steps so the provider's prompt cache keeps hitting.
  ...recommendedContext(),
  // Keeps the stored session small; runs only after a final answer, never inside a tool loop.
  compactor: compaction.tokenLimit({ maxTokens: 900, targetTokens: 600 }),
});

const inputs = [
  'I am planning a trip from Paris to Lisbon next week. What is the weather in Paris and Lisbon?',
  'Find me a flight from Paris to Lisbon.',
  'How much is 250 EUR in dollars?',
  'Also check the weather in Oslo and Rome, I might extend the trip.',
  'Please remember that I prefer window seats and vegetarian meals.',
  'And flights from Lisbon to Rome?',
];
for (const input of inputs) {
  const turn = await conversation.send('trip-lisbon', input, { userId: 'demo-user' });
  const toolsRun = turn.messages.filter((m) => m.role === 'tool').map((m) => m.name);
  const { version } = turn.session;
  // A compaction is stored as a version of its own: the turn's append, then a compare-and-replace of the history.
  // Its figures are by the compactor's counter (the default estimate, which errs high), not exact counts.
  const compacted =
    turn.compaction?.compacted === true
      ? `v${version} (the turn stored as v${version - 1}; its compaction, ${turn.compaction.tokensBefore} → ${turn.compaction.tokensAfter} tokens by the estimate, as v${version})`
      : `v${version}`;
  console.log(
    `> ${input}\n  ${count(turn.iterations, 'model call')}, tools [${toolsRun.join(', ')}], session ${compacted}`,
  );
}

// A new session of the same user: the agent recalls what it was told in the other one.
const later = await conversation.send('trip-rome', 'Which seats and meals do I like?', { userId: 'demo-user' });
console.log(`\n> Which seats and meals do I like?  (another session)\n${Message.text(later.reply)}`);
await conversation.close();
await store.close();

// Reloaded by a new store instance from the files alone.
const reopened = await openStore(`file:${directory}`);
const reloaded = await reopened.load('trip-lisbon');
// What remembered lives in the user's knowledge session: internal, so not shown among their conversations.
const sessions = (await reopened.list({ userId: 'demo-user' })).filter((s) => !s.id.startsWith(KNOWLEDGE_PREFIX));
console.log(
  `\nreloaded ${reloaded.id}: ${count(reloaded.messages.length, 'message')} (seq ${reloaded.messages[0]?.seq}…${reloaded.messages.at(-1)?.seq}), agent ${reloaded.agentId}, version ${reloaded.version}`,
);
console.log(
  `conversations of demo-user: ${sessions.map((s) => `${s.id} (${count(s.messageCount, 'message')}${s.title === undefined ? '' : `, "${s.title.slice(0, 40)}"`})`).join('; ')}`,
);
await reopened.close();

// Chat-with-state for stateless callers: a signed, encrypted blob, locked to the model's provider.
const key = 'example-secret-key-of-at-least-16-bytes';
const first = await chatWithState(travelModel, undefined, 'What is the weather in Berlin?', {
  key,
  encrypt: true,
  tools,
});
const second = await chatWithState(travelModel, first.state, 'How much is 90 EUR in dollars?', { key, tools });
const tampered = await chatWithState(travelModel, `${second.state.slice(0, -4)}AAAA`, 'Hello?', { key, tools });
console.log(
  `\nopaque state: ${second.state.length} chars after two calls; a tampered blob → rejected (${tampered.rejected?.reason}), the call went on from an empty history`,
);

console.log('\n=== history ===');
console.log(reloaded.formatHistory({ maxChars: 120 }));

console.log('\n=== statistics (tokens: exact o200k_base counts, not the estimate the compaction used) ===');
console.log(JSON.stringify(reloaded.stats(tokens.o200kBase), null, 2));

console.log('\n=== provider formats ===');
for (const provider of PROVIDERS) {
  const wire = formats[provider].to(reloaded.messages);
  const problems = validate(provider, wire);
  console.log(
    `${provider.padEnd(16)} ${problems.length === 0 ? 'valid' : `${problems.length} problems`}, ${wire.warnings.length} warnings`,
  );
}

console.log(`\nstored in ${directory}: npx chatstate list, or npx chatstate serve and open http://127.0.0.1:3000/`);
