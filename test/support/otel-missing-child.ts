/**
 * Child process of the "no @opentelemetry/api" test: hides the package from `require` (how
 * chatstate loads it), runs a turn with a tool call, and prints what it saw as JSON.
 *
 * Usage: node --import tsx otel-missing-child.ts
 */
import Module from 'node:module';

const modules = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
const resolve = modules._resolveFilename.bind(Module);
let asked = 0;
modules._resolveFilename = (request: string, ...rest: unknown[]) => {
  if (request === '@opentelemetry/api') {
    asked += 1;
    throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), { code: 'MODULE_NOT_FOUND' });
  }
  return resolve(request, ...rest);
};

const { Conversation } = await import('../../src/runtime/conversation.js');
const { memoryStore } = await import('../../src/stores/memory.js');
const { callTools, say, scriptedModel } = await import('./scripted-model.js');
const model = scriptedModel([callTools([{ name: 'echo', arguments: {} }]), say('fine'), say('again')]);
const conversation = new Conversation({
  store: memoryStore(),
  agents: { id: 'a', model, tools: [{ name: 'echo', execute: (args) => args }] },
});
const first = await conversation.send('s1', 'Hi');
const second = await conversation.send('s1', 'Again');
await conversation.close();
process.stdout.write(JSON.stringify({ replies: [first.reply.content, second.reply.content], asked }));
