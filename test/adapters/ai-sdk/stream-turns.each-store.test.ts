/**
 * Real AI SDK turns (`streamText` with the SDK's `MockLanguageModelV3`, real tools, several steps)
 * persisted by the chat store, reloaded and continued, over every store: the route of the AI SDK 6
 * persistence guide, in its "send only the last message" form.
 */
import {
  convertToModelMessages,
  createUIMessageStream,
  readUIMessageStream,
  stepCountIs,
  streamText,
  tool,
  validateUIMessages,
  type InferUITools,
  type UIDataTypes,
  type UIMessage,
} from 'ai';
import { expect, it } from 'vitest';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import {
  createChatStore,
  withMessage,
  type ChatStore,
  type SaveChatResult,
} from '../../../src/adapters/ai-sdk/index.js';
import { formats } from '../../../src/formats/index.js';
import { describeEveryStore, storesOf } from '../../support/stores-under-test.js';
import { scriptedModel } from './scripted-model.js';

const tools = {
  /** A client-side tool: no `execute`, the browser answers it (`addToolOutput`). */
  confirm: tool({
    description: 'Asks the user to confirm',
    inputSchema: z.object({ question: z.string() }),
    outputSchema: z.object({ confirmed: z.boolean() }),
  }),
  /** A tool that runs only once the user approved the call. */
  remove: tool({
    description: 'Deletes a file',
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
    execute: async ({ path }: { path: string }) => ({ removed: path }),
  }),
  weather: tool({
    description: 'The weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }: { city: string }) => {
      if (city === 'Atlantis') throw new Error('Unknown city: Atlantis');
      return { city, temperature: city.length * 3 };
    },
  }),
};

/** The chat's message type, typed by its tools (as an application declares it). */
type ChatMessage = UIMessage<unknown, UIDataTypes, InferUITools<typeof tools>>;

let ids = 0;
const generateId = (): string => `msg-${(ids += 1)}`;

/**
 * One request of the route: loads the stored chat, adds the client's last message, validates,
 * streams (a data part first, then the model's parts, metadata on finish), and saves in
 * `onFinish`. Returns the assistant message as the client's `readUIMessageStream` builds it.
 */
async function turn(
  chats: ChatStore<ChatMessage>,
  id: string,
  message: ChatMessage,
  model: ReturnType<typeof scriptedModel>,
  options: TurnOptions = {},
): Promise<ChatMessage> {
  const previous = await chats.loadChat(id);
  const list = withMessage(previous, message);
  const validated = await validateUIMessages<ChatMessage>({ messages: list, tools });
  // The persistence guide's two forms: `originalMessages` validated (copies), or the list itself.
  const messages = options.original === 'loaded' ? list : validated;
  let saved: Promise<unknown> = Promise.resolve();
  const last = messages.at(-1);
  const continued = last?.role === 'assistant' ? last : undefined;
  const stream = createUIMessageStream({
    originalMessages: messages,
    generateId,
    execute: async ({ writer }) => {
      // The message starts here (not in the merged stream), so the data part is its first part.
      // An assistant message the client sent back (a tool output added) is continued, not replaced.
      writer.write({ type: 'start', messageId: continued?.id ?? generateId() });
      writer.write({ type: 'data-status', id: 'status', data: { phase: 'started' } });
      const result = streamText({
        model,
        messages: await convertToModelMessages(validated, { tools }),
        tools,
        stopWhen: stepCountIs(4),
      });
      writer.merge(
        result.toUIMessageStream({
          sendReasoning: true,
          sendStart: false,
          onError: (error) => (error instanceof Error ? error.message : String(error)),
          messageMetadata: ({ part }) => (part.type === 'finish' ? { finishedSteps: 'all', model: 'mock' } : undefined),
        }),
      );
    },
    onFinish: ({ messages: finished }) => {
      options.finished?.(finished, messages);
      saved = chats.commitChat({ id, messages: finished }).then((result) => options.saved?.(result));
    },
  });
  let reply: ChatMessage | undefined;
  const read = readUIMessageStream({ stream, ...(continued === undefined ? {} : { message: continued }) });
  for await (const snapshot of read) reply = snapshot;
  await saved;
  if (reply === undefined) throw new Error('the stream made no message');
  return reply;
}

/** How `turn` passes the list on, and what it reports. */
interface TurnOptions {
  /** `validated`: `validateUIMessages`' copies as `originalMessages`; `loaded`: the loaded list itself. @default 'validated' */
  readonly original?: 'validated' | 'loaded';
  /** Called with `onFinish`'s messages and the `originalMessages` the stream was given. */
  readonly finished?: (finished: readonly ChatMessage[], original: readonly ChatMessage[]) => void;
  readonly saved?: (result: SaveChatResult) => void;
}

/** `waiting` as the browser sends it back once the user approved its `remove` call (`addToolApprovalResponse`). */
function approveRemove(waiting: ChatMessage): ChatMessage {
  return {
    ...waiting,
    parts: waiting.parts.map((part) =>
      part.type === 'tool-remove' && part.state === 'approval-requested'
        ? { ...part, state: 'approval-responded', approval: { ...part.approval, approved: true } }
        : part,
    ),
  } as ChatMessage;
}

function user(id: string, text: string): ChatMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

await describeEveryStore(
  'ai-sdk chat store, streamed turns',
  (subject) => {
    const stores = storesOf(subject);

    it('saves a multi-step tool turn, reloads it after a restart, and continues it with only the last message', async () => {
      const store = await stores.open();
      const first = scriptedModel([
        {
          calls: [
            { id: 'call-paris', tool: 'weather', input: { city: 'Paris' } },
            { id: 'call-atlantis', tool: 'weather', input: { city: 'Atlantis' } },
          ],
        },
        { text: 'Paris is 15 degrees; Atlantis is unknown.', reasoning: 'Two results, one error.' },
      ]);
      const asked = user('u-1', 'Weather in Paris and Atlantis?');
      const reply = await turn(createChatStore<ChatMessage>({ store }), 'chat-1', asked, first);
      expect(reply.parts.map((part) => part.type)).toEqual([
        'data-status',
        'step-start',
        'tool-weather',
        'tool-weather',
        'step-start',
        'reasoning',
        'text',
      ]);
      expect(reply.parts[2]).toMatchObject({ state: 'output-available', output: { city: 'Paris', temperature: 15 } });
      expect(reply.parts[3]).toMatchObject({ state: 'output-error', errorText: 'Unknown city: Atlantis' });
      expect(reply.metadata).toEqual({ finishedSteps: 'all', model: 'mock' });

      // Reload in a new process: what the client had is what the store gives back.
      const reopened = await stores.reopen(store);
      const chats = createChatStore<ChatMessage>({ store: reopened });
      const reloaded = await chats.loadChat('chat-1');
      expect(reloaded).toStrictEqual(JSON.parse(JSON.stringify([asked, reply])));
      expect(await validateUIMessages<ChatMessage>({ messages: reloaded, tools })).toStrictEqual(reloaded);
      // Stored as a provider-valid conversation: a call step, its two results, the answer step.
      const session = await reopened.load('chat-1');
      expect(session.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'tool',
        'tool',
        'assistant',
      ]);
      expect(formats.aiSdk.validate(formats.aiSdk.to(session.messages))).toEqual([]);
      // And it says what the AI SDK itself would send: chatstate's aiSdk format over the stored
      // session gives the prompt convertToModelMessages makes of the UI messages.
      expect(formats.aiSdk.to(session.messages).messages).toEqual(await convertToModelMessages(reloaded, { tools }));

      // Second request: the client sends only its new message.
      const second = scriptedModel([
        { calls: [{ id: 'call-oslo', tool: 'weather', input: { city: 'Oslo' } }] },
        { text: 'Oslo is 12 degrees.' },
      ]);
      const next = user('u-2', 'And Oslo?');
      const answer = await turn(chats, 'chat-1', next, second);
      // The second turn's first model call saw the whole first turn, from the store.
      const prompt = second.doStreamCalls[0]?.prompt;
      expect(prompt?.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
      expect(prompt?.[1]).toMatchObject({
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call-paris', toolName: 'weather', input: { city: 'Paris' } },
          { type: 'tool-call', toolCallId: 'call-atlantis', toolName: 'weather', input: { city: 'Atlantis' } },
        ],
      });
      expect(prompt?.[2]).toMatchObject({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call-paris',
            output: { type: 'json', value: { city: 'Paris', temperature: 15 } },
          },
          {
            type: 'tool-result',
            toolCallId: 'call-atlantis',
            output: { type: 'error-text', value: 'Unknown city: Atlantis' },
          },
        ],
      });
      expect(prompt?.[3]).toMatchObject({
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Two results, one error.' },
          { type: 'text', text: 'Paris is 15 degrees; Atlantis is unknown.' },
        ],
      });
      expect(prompt?.[4]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'And Oslo?' }] });

      const all = await createChatStore<ChatMessage>({ store: reopened }).loadChat('chat-1');
      expect(all).toStrictEqual(JSON.parse(JSON.stringify([asked, reply, next, answer])));
      expect(all.at(-1)?.parts.find((part) => part.type === 'tool-weather')).toMatchObject({
        state: 'output-available',
        output: { city: 'Oslo', temperature: 12 },
      });
      // The second turn was appended: the first turn's stored messages kept their sequence numbers.
      const after = await reopened.load('chat-1');
      expect(after.messages.slice(0, 5).map((message) => message.seq)).toEqual(
        session.messages.map((message) => message.seq),
      );
    });

    it('keeps a turn stopped at a client-side tool, and continues it when the output arrives', async () => {
      const store = await stores.open();
      const chats = createChatStore<ChatMessage>({ store });
      const asked = user('u-1', 'Delete my account?');
      const model = scriptedModel([
        { calls: [{ id: 'call-confirm', tool: 'confirm', input: { question: 'Really delete?' } }] },
        { text: 'Deleted.' },
      ]);
      const waiting = await turn(chats, 'chat-2', asked, model);
      expect(waiting.parts.at(-1)).toMatchObject({ type: 'tool-confirm', state: 'input-available' });
      // Stopped mid-tool: stored without a dangling call, reloaded exactly, accepted by the SDK.
      const reloaded = await createChatStore<ChatMessage>({ store: await stores.reopen(store) }).loadChat('chat-2');
      expect(reloaded).toStrictEqual(JSON.parse(JSON.stringify([asked, waiting])));
      expect(await validateUIMessages<ChatMessage>({ messages: reloaded, tools })).toStrictEqual(reloaded);
      expect(await convertToModelMessages(reloaded, { tools, ignoreIncompleteToolCalls: true })).toHaveLength(1);

      // The browser answers the tool and sends the assistant message back (same id, new state).
      const store2 = await stores.reopen(store);
      const resumed = createChatStore<ChatMessage>({ store: store2 });
      const answered = {
        ...waiting,
        parts: waiting.parts.map((part) =>
          part.type === 'tool-confirm' ? { ...part, state: 'output-available', output: { confirmed: true } } : part,
        ),
      } as ChatMessage;
      const final = await turn(resumed, 'chat-2', answered, model);
      expect(final.id).toBe(waiting.id);
      expect(final.parts.map((part) => part.type)).toEqual([
        'data-status',
        'step-start',
        'tool-confirm',
        'step-start',
        'text',
      ]);
      expect(model.doStreamCalls[1]?.prompt.at(-1)).toMatchObject({
        role: 'tool',
        content: [{ toolCallId: 'call-confirm', output: { type: 'json', value: { confirmed: true } } }],
      });
      // The assistant message was rewritten in place: one chat, two messages, the call now paired.
      expect(await resumed.loadChat('chat-2')).toStrictEqual(JSON.parse(JSON.stringify([asked, final])));
      const session = await store2.load('chat-2');
      expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(formats.aiSdk.validate(formats.aiSdk.to(session.messages))).toEqual([]);
    });

    it('keeps a stream aborted in the middle of a tool call, and the next request continues from it', async () => {
      const store = await stores.open();
      const chats = createChatStore<ChatMessage>({ store });
      const controller = new AbortController();
      // A model that says a few words, starts a tool call, and stalls until the request is aborted.
      const stalled = new MockLanguageModelV3({
        doStream: async ({ abortSignal }) => ({
          stream: new ReadableStream({
            start(stream) {
              stream.enqueue({ type: 'stream-start', warnings: [] });
              stream.enqueue({ type: 'text-start', id: 't' });
              stream.enqueue({ type: 'text-delta', id: 't', delta: 'Let me look.' });
              stream.enqueue({ type: 'text-end', id: 't' });
              stream.enqueue({ type: 'tool-input-start', id: 'call-oslo', toolName: 'weather' });
              stream.enqueue({ type: 'tool-input-delta', id: 'call-oslo', delta: '{"city":"Os' });
              abortSignal?.addEventListener('abort', () => stream.error(abortSignal.reason));
              setTimeout(() => controller.abort(), 20);
            },
          }),
        }),
      });
      const asked = user('u-1', 'Weather in Oslo?');
      const messages = [asked];
      let saved: Promise<void> = Promise.resolve();
      let aborted = false;
      const result = streamText({
        model: stalled,
        messages: await convertToModelMessages(messages),
        tools,
        abortSignal: controller.signal,
      });
      const stream = result.toUIMessageStream({
        originalMessages: messages,
        generateMessageId: generateId,
        onFinish: ({ messages: finished, isAborted }) => {
          aborted = isAborted;
          saved = chats.saveChat({ id: 'chat-3', messages: finished });
        },
      });
      let partial: ChatMessage | undefined;
      for await (const snapshot of readUIMessageStream<ChatMessage>({ stream })) partial = snapshot;
      await saved;
      expect(aborted).toBe(true);
      expect(partial?.parts.at(-1)).toMatchObject({
        type: 'tool-weather',
        state: 'input-streaming',
        input: { city: 'Os' },
      });

      const resumed = createChatStore<ChatMessage>({ store: await stores.reopen(store) });
      const reloaded = await resumed.loadChat('chat-3');
      expect(reloaded).toStrictEqual(JSON.parse(JSON.stringify([asked, partial])));
      expect(await validateUIMessages<ChatMessage>({ messages: reloaded, tools })).toStrictEqual(reloaded);
      // The half-made call is no call yet: the AI SDK drops it when told to, chatstate never stored it as one.
      expect(await convertToModelMessages(reloaded, { tools, ignoreIncompleteToolCalls: true })).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo?' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }] },
      ]);

      // The user asks again, sending only the new message: the model gets the interrupted turn.
      const again = scriptedModel([{ text: 'Oslo: 12 degrees.' }]);
      const answer = await turn(resumed, 'chat-3', user('u-2', 'Try again'), again);
      expect(again.doStreamCalls[0]?.prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
      expect(await resumed.loadChat('chat-3')).toStrictEqual(
        JSON.parse(JSON.stringify([asked, partial, user('u-2', 'Try again'), answer])),
      );
    });

    it('keeps a tool call waiting for approval across a reload, and runs it once approved', async () => {
      const store = await stores.open();
      const chats = createChatStore<ChatMessage>({ store });
      const model = scriptedModel([
        { calls: [{ id: 'call-rm', tool: 'remove', input: { path: '/tmp/x' } }] },
        { text: 'Removed /tmp/x.' },
      ]);
      const asked = user('u-1', 'Delete /tmp/x');
      const waiting = await turn(chats, 'chat-4', asked, model);
      const request = waiting.parts.find((part) => part.type === 'tool-remove');
      expect(request).toMatchObject({ state: 'approval-requested', input: { path: '/tmp/x' } });

      const reopened = await stores.reopen(store);
      const resumed = createChatStore<ChatMessage>({ store: reopened });
      const reloaded = await resumed.loadChat('chat-4');
      expect(reloaded).toStrictEqual(JSON.parse(JSON.stringify([asked, waiting])));
      // The user approves in the browser (`addToolApprovalResponse`): the same message comes back.
      const approved = approveRemove(waiting);
      const final = await turn(resumed, 'chat-4', approved, model);
      expect(final.parts.find((part) => part.type === 'tool-remove')).toMatchObject({
        state: 'output-available',
        output: { removed: '/tmp/x' },
        approval: { approved: true },
      });
      expect(await resumed.loadChat('chat-4')).toStrictEqual(JSON.parse(JSON.stringify([asked, final])));
      // With its output the call joins the stored conversation, paired with its result.
      const session = await reopened.load('chat-4');
      expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
      expect(session.messages[1]?.toolCalls?.map((call) => call.id)).toEqual(['call-rm']);
      expect(formats.aiSdk.validate(formats.aiSdk.to(session.messages))).toEqual([]);
    });

    it('passes the frozen loaded messages on as they are (originalMessages), and a save over them writes only the change', async () => {
      const store = await stores.open();
      const chats = createChatStore<ChatMessage>({ store });
      const model = scriptedModel([
        { text: 'Hello.' },
        { calls: [{ id: 'call-rm', tool: 'remove', input: { path: '/tmp/y' } }] },
        { text: 'Removed /tmp/y.' },
      ]);
      const seen: Array<{ finished: readonly ChatMessage[]; original: readonly ChatMessage[] }> = [];
      const results: SaveChatResult[] = [];
      const options: TurnOptions = {
        original: 'loaded',
        finished: (finished, original) => seen.push({ finished, original }),
        saved: (result) => results.push(result),
      };
      await turn(chats, 'chat-5', user('u-1', 'Hi'), model, options);
      const waiting = await turn(chats, 'chat-5', user('u-2', 'Delete /tmp/y'), model, options);
      // onFinish gives the loaded messages back as the very objects: deep-frozen, untouched by the SDK.
      const second = seen[1];
      expect(second?.finished.slice(0, 2).every((message, index) => message === second.original[index])).toBe(true);
      expect(Object.isFrozen(second?.original[0]?.parts[0])).toBe(true);
      expect(results.map((result) => result.kind)).toEqual(['append', 'append']);
      // Approved in the browser: the continued assistant message (the SDK clones it) replaces the stored one.
      const approved = approveRemove(waiting);
      const final = await turn(chats, 'chat-5', approved, model, options);
      expect(final.parts.find((part) => part.type === 'tool-remove')).toMatchObject({ state: 'output-available' });
      expect(results.at(-1)?.kind).toBe('rewrite');
      const reloaded = await createChatStore<ChatMessage>({ store: await stores.reopen(store) }).loadChat('chat-5');
      expect(reloaded.map((message) => message.id)).toEqual(['u-1', seen[0]?.finished[1]?.id, 'u-2', waiting.id]);
      expect(reloaded.at(-1)).toStrictEqual(JSON.parse(JSON.stringify(final)));
    });
  },
  'aisdkstream',
);
