/** UI messages with every part kind and tool state the AI SDK 6 has, for the chat store's tests. */
import type { UIMessage } from 'ai';

const weather = { city: 'Paris', unit: 'celsius' };

/** A chat with every part kind, static and dynamic tool parts in every state, metadata and provider metadata. */
export function everyPartChat(): UIMessage[] {
  return [
    { id: 'sys-1', role: 'system', parts: [{ type: 'text', text: 'You are terse.' }] },
    {
      id: 'user-1',
      role: 'user',
      metadata: { createdAt: 1_700_000_000_000, tags: ['a', 'b'], nested: { deep: [1, null, { x: true }] } },
      parts: [
        { type: 'text', text: 'What is the weather in Paris? See the file.' },
        { type: 'file', mediaType: 'image/png', filename: 'map.png', url: 'data:image/png;base64,iVBORw0KGgo=' },
        { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/report.pdf' },
        { type: 'data-context', id: 'ctx-1', data: { page: '/weather', scroll: 0.5 } },
      ],
    },
    {
      id: 'assistant-1',
      role: 'assistant',
      metadata: { model: 'mock', usage: { inputTokens: 10, outputTokens: 20 } },
      parts: [
        { type: 'step-start' },
        {
          type: 'reasoning',
          text: 'The user wants weather.',
          state: 'done',
          providerMetadata: { anthropic: { signature: 'sig-123' } },
        },
        { type: 'text', text: 'Let me check.', state: 'done' },
        {
          type: 'tool-weather',
          toolCallId: 'call-1',
          state: 'output-available',
          input: weather,
          output: { temperature: 21, sky: 'clear' },
          callProviderMetadata: { openai: { itemId: 'fc_1' } },
        },
        {
          type: 'tool-weather',
          toolCallId: 'call-2',
          state: 'output-error',
          input: { city: 'Atlantis' },
          errorText: 'Unknown city',
        },
        {
          type: 'dynamic-tool',
          toolName: 'search',
          toolCallId: 'call-3',
          state: 'output-available',
          input: { query: 'paris' },
          output: 'plain text result',
        },
        {
          type: 'tool-delete',
          toolCallId: 'call-4',
          state: 'output-denied',
          input: { path: '/' },
          approval: { id: 'approval-1', approved: false, reason: 'too risky' },
        },
        { type: 'step-start' },
        { type: 'source-url', sourceId: 'src-1', url: 'https://example.com/weather', title: 'Weather' },
        {
          type: 'source-document',
          sourceId: 'src-2',
          mediaType: 'application/pdf',
          title: 'Report',
          filename: 'report.pdf',
        },
        {
          type: 'text',
          text: 'It is 21°C and clear.',
          state: 'done',
          providerMetadata: { openai: { itemId: 'msg_1' } },
        },
        { type: 'data-weather', id: 'w-1', data: { temperature: 21 } },
        { type: 'file', mediaType: 'text/plain', url: 'data:text/plain;base64,aGk=' },
      ],
    },
    {
      id: 'user-2',
      role: 'user',
      parts: [{ type: 'text', text: 'And in Rome, with approval?' }],
    },
    {
      id: 'assistant-2',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'tool-weather', toolCallId: 'call-5', state: 'input-streaming', input: { city: 'Ro' } },
        { type: 'tool-weather', toolCallId: 'call-6', state: 'input-available', input: { city: 'Rome' } },
        {
          type: 'tool-book',
          toolCallId: 'call-7',
          state: 'approval-requested',
          input: { hotel: 'H' },
          approval: { id: 'approval-2' },
        },
        {
          type: 'dynamic-tool',
          toolName: 'pay',
          toolCallId: 'call-8',
          state: 'approval-responded',
          input: { amount: 3 },
          approval: { id: 'approval-3', approved: true, reason: 'ok' },
        },
        {
          type: 'tool-weather',
          toolCallId: 'call-9',
          state: 'output-available',
          input: { city: 'Milan' },
          output: 12,
          providerExecuted: true,
        },
        { type: 'text', text: 'streaming…', state: 'streaming' },
      ],
    },
  ] as UIMessage[];
}

/** A chat interrupted mid-tool: the assistant called a tool and the process stopped before its output. */
export function interruptedChat(): UIMessage[] {
  return [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo?' }] },
    {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'text', text: 'Checking.', state: 'done' },
        { type: 'tool-weather', toolCallId: 'call-oslo', state: 'input-available', input: { city: 'Oslo' } },
      ],
    },
  ] as UIMessage[];
}
