/**
 * `npm start`: an agent conversation end to end, with no network — a scripted model that calls
 * real tool functions, every message appended durably to the embedded file store, tool-safe
 * compaction after each final answer, the session reloaded from disk, an opaque signed state blob,
 * and the history sent through every provider format.
 */
import { join } from 'node:path';
import { compaction } from '../src/compaction/index.js';
import { formats, validate } from '../src/formats/index.js';
import { Message } from '../src/message/message.js';
import { PROVIDERS } from '../src/message/schema.js';
import { Session } from '../src/session/session.js';
import { decodeState, encodeState } from '../src/state/index.js';
import { openStore } from '../src/stores/open-store.js';
import { tokens } from '../src/tokens/index.js';

type Tool = (args: Record<string, string>) => unknown;

const tools: Record<string, Tool> = {
  get_weather: ({ city = '' }) => ({ city, forecast: city.length % 2 === 0 ? 'sunny' : 'light rain', highC: 10 + (city.length % 9) }),
  search_flights: ({ from = '', to = '' }) =>
    Array.from({ length: 3 }, (_, i) => ({ flight: `CS${100 + i * 7}`, from, to, departs: `0${7 + i * 3}:15`, priceEur: 89 + i * 41 })),
  convert_currency: ({ amount = '0' }) => ({ eur: Number(amount), usd: Math.round(Number(amount) * 108) / 100 }),
};

/** A scripted stand-in for a model: asks for tools until it has their results, then answers. */
function scriptedModel(history: readonly Message[]): Message {
  const last = history.at(-1);
  const request = [...history].reverse().find((m) => m.role === 'user' && m.category === 'dialog');
  const text = request === undefined ? '' : Message.text(request);
  if (last?.role === 'tool') {
    const results = history.slice(history.lastIndexOf(request as Message)).filter((m) => m.role === 'tool');
    return Message.assistant(`Here is what I found:\n${results.map((m) => `- ${Message.text(m)}`).join('\n')}`);
  }
  const cities = [...text.matchAll(/\b(Paris|Lisbon|Oslo|Rome|Berlin)\b/g)].map((m) => m[1] as string);
  const calls = [];
  if (/weather/i.test(text)) for (const city of cities) calls.push({ name: 'get_weather', arguments: { city } });
  if (/flight/i.test(text) && cities.length >= 2) calls.push({ name: 'search_flights', arguments: { from: cities[0] as string, to: cities[1] as string } });
  if (/\d+ ?eur/i.test(text)) calls.push({ name: 'convert_currency', arguments: { amount: /(\d+) ?eur/i.exec(text)?.[1] ?? '0' } });
  if (calls.length === 0) return Message.assistant(`Noted: "${text}". Anything else for the trip?`);
  return Message.assistant('Let me check.', { toolCalls: calls.map((call, i) => ({ id: `call_${history.length}_${i}`, ...call })) });
}

const compactor = compaction.tokenLimit({ maxTokens: 900, targetTokens: 600 });
const inputs = [
  'I am planning a trip from Paris to Lisbon next week. What is the weather in Paris and Lisbon?',
  'Find me a flight from Paris to Lisbon.',
  'How much is 250 EUR in dollars?',
  'Also check the weather in Oslo and Rome, I might extend the trip.',
  'And flights from Lisbon to Rome?',
  'Please remember that I prefer window seats.',
];

// The embedded default store: a directory of checksummed journals and snapshots.
const directory = join(process.cwd(), '.chatstate', 'example');
const store = await openStore(`file:${directory}`);
let session = await store.save(
  Session.create({ agentId: 'travel-planner', userId: 'demo-user' }).append(
    Message.system('You are a concise travel assistant. Use tools for facts.'),
    Message.context('Company policy: economy class only; budget 600 EUR per leg.'),
  ),
);

/** Appends durably (fsync'd when it resolves), then to the in-memory value. */
async function record(...messages: Message[]): Promise<void> {
  const { appended } = await store.append(session.id, messages, { expectedVersion: session.version });
  session = session.append(...appended);
}

for (const input of inputs) {
  await record(Message.user(input));
  // The tool loop: never compacted in the middle, only after the final answer.
  for (let step = 0; step < 5; step++) {
    const reply = scriptedModel(session.messages);
    await record(reply);
    if (reply.toolCalls === undefined) break;
    const results = reply.toolCalls.map((call) => {
      const tool = tools[call.name];
      const output = tool === undefined ? { error: `unknown tool ${call.name}` } : tool(JSON.parse(call.arguments) as Record<string, string>);
      return Message.tool(call.id, JSON.stringify(output), { name: call.name });
    });
    await record(...results);
  }
  const { session: compacted, result } = session.compact(compactor);
  if (result?.compacted === true) {
    session = await store.save(compacted, { expectedVersion: session.version });
    console.log(
      `compacted after "${input.slice(0, 40)}…": removed ${result.removed.count} messages (${result.removed.tokens} tokens), ${result.tokensBefore} → ${result.tokensAfter} tokens`,
    );
  }
}

const reloaded = await store.load(session.id);
const [summary] = await store.list({ limit: 1 });
console.log(`\nreloaded ${reloaded.id} from ${directory}: ${reloaded.messages.length} messages (seq ${reloaded.messages[0]?.seq}…${reloaded.messages.at(-1)?.seq}), agent ${reloaded.agentId}, version ${reloaded.version}`);
console.log(`index: "${summary?.title}", ${summary?.messageCount} messages, ${summary?.tokenCount} tokens`);
await store.close();

// Chat-with-state for stateless callers: a signed, encrypted blob, locked to one provider.
const key = 'example-secret-key-of-at-least-16-bytes';
const blob = encodeState(reloaded.messages, { provider: 'anthropic', key, encrypt: true });
const decoded = decodeState(blob, { provider: 'anthropic', key });
const tampered = decodeState(`${blob.slice(0, -4)}AAAA`, { provider: 'anthropic', key });
console.log(`opaque state: ${blob.length} chars, ${decoded.messages.length} messages back; tampered blob → rejected: ${tampered.rejected?.reason}`);

console.log('\n=== history ===');
console.log(reloaded.formatHistory({ maxChars: 120 }));

console.log('\n=== statistics (exact o200k_base) ===');
console.log(JSON.stringify(reloaded.stats(tokens.o200kBase), null, 2));

console.log('\n=== provider formats ===');
for (const provider of PROVIDERS) {
  const wire = formats[provider].to(reloaded.messages);
  const problems = validate(provider, wire);
  console.log(`${provider.padEnd(16)} ${problems.length === 0 ? 'valid' : `${problems.length} problems`}, ${wire.warnings.length} warnings`);
}
