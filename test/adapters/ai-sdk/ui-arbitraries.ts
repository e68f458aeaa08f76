/** fast-check arbitraries of AI SDK 6 UI messages: every part kind, every tool state, arbitrary JSON. */
import type { UIMessage } from 'ai';
import fc from 'fast-check';

const text = fc.string({ maxLength: 12, unit: 'grapheme' });
const json = fc.jsonValue({ maxDepth: 3 });
const providerMetadata = fc.dictionary(
  fc.oneof(fc.constantFrom('openai', 'anthropic', 'google', 'aiSdk'), text),
  fc.dictionary(text, json, { maxKeys: 3 }),
  { maxKeys: 2 },
);
/** Tool call ids: provider-like ones, and ones chatstate cannot use as a call id (spaces, unicode, long). */
const callId = fc.oneof(
  fc.stringMatching(/^call_[A-Za-z0-9]{1,8}$/),
  text,
  fc.string({ minLength: 257, maxLength: 260 }),
);
const toolName = fc.oneof(fc.constantFrom('weather', 'search', 'a-b_c'), fc.string({ maxLength: 10 }));

function optional<T>(key: string, value: fc.Arbitrary<T>): fc.Arbitrary<Record<string, T>> {
  return fc.option(value, { nil: undefined }).map((item) => (item === undefined ? {} : { [key]: item }));
}

const approval = fc.record(
  { id: text, approved: fc.boolean(), reason: text, signature: text },
  { requiredKeys: ['id'] },
);

/** The state-specific fields of a tool part, one arbitrary per state. */
const toolState = fc.oneof(
  fc
    .tuple(optional('input', json), optional('rawInput', text))
    .map(([input, raw]) => ({ state: 'input-streaming', ...input, ...raw })),
  json.map((input) => ({ state: 'input-available', input })),
  fc.tuple(json, approval).map(([input, item]) => ({
    state: 'approval-requested',
    input,
    approval: { id: item.id },
  })),
  fc.tuple(json, approval, fc.boolean()).map(([input, item, approved]) => ({
    state: 'approval-responded',
    input,
    approval: { ...item, approved },
  })),
  fc
    .tuple(
      json,
      json,
      fc.option(fc.boolean(), { nil: undefined }),
      optional('resultProviderMetadata', providerMetadata),
    )
    .map(([input, output, preliminary, meta]) => ({
      state: 'output-available',
      input,
      output,
      ...(preliminary === undefined ? {} : { preliminary }),
      ...meta,
    })),
  fc.tuple(optional('input', json), text).map(([input, errorText]) => ({ state: 'output-error', ...input, errorText })),
  fc.tuple(json, approval).map(([input, item]) => ({
    state: 'output-denied',
    input,
    approval: { ...item, approved: false },
  })),
);

const toolCommon = fc
  .tuple(
    callId,
    optional('title', text),
    optional('providerExecuted', fc.boolean()),
    optional('callProviderMetadata', providerMetadata),
  )
  .map(([toolCallId, title, executed, meta]) => ({ toolCallId, ...title, ...executed, ...meta }));

/** One UI part of any kind. */
export const uiPart = fc.oneof(
  fc
    .tuple(
      text,
      optional('state', fc.constantFrom('streaming', 'done')),
      optional('providerMetadata', providerMetadata),
    )
    .map(([value, state, meta]) => ({ type: 'text', text: value, ...state, ...meta })),
  fc
    .tuple(
      text,
      optional('state', fc.constantFrom('streaming', 'done')),
      optional('providerMetadata', providerMetadata),
    )
    .map(([value, state, meta]) => ({ type: 'reasoning', text: value, ...state, ...meta })),
  fc
    .tuple(
      fc.constantFrom('image/png', 'application/pdf', ''),
      fc.oneof(fc.constant('data:image/png;base64,iVBORw0KGgo='), fc.webUrl(), text),
      optional('filename', text),
      optional('providerMetadata', providerMetadata),
    )
    .map(([mediaType, url, filename, meta]) => ({ type: 'file', mediaType, url, ...filename, ...meta })),
  fc
    .tuple(text, fc.webUrl(), optional('title', text))
    .map(([sourceId, url, title]) => ({ type: 'source-url', sourceId, url, ...title })),
  fc.tuple(text, text, optional('filename', text)).map(([sourceId, title, filename]) => ({
    type: 'source-document',
    sourceId,
    mediaType: 'application/pdf',
    title,
    ...filename,
  })),
  fc.constant({ type: 'step-start' }),
  fc
    .tuple(fc.stringMatching(/^[a-z][a-z-]{0,8}$/), optional('id', text), json)
    .map(([name, id, data]) => ({ type: `data-${name}`, ...id, data })),
  fc
    .tuple(fc.stringMatching(/^[a-z][a-zA-Z0-9_-]{0,8}$/), toolCommon, toolState)
    .map(([name, common, state]) => ({ type: `tool-${name}`, ...common, ...state })),
  fc
    .tuple(toolName, toolCommon, toolState)
    .map(([name, common, state]) => ({ type: 'dynamic-tool', toolName: name, ...common, ...state })),
);

/** One UI message: any role, any parts, arbitrary JSON metadata (or none). */
export const uiMessage = fc
  .tuple(
    fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{16}$/), fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' })),
    fc.constantFrom('system', 'user', 'assistant'),
    fc.array(uiPart, { maxLength: 8 }),
    optional('metadata', json),
  )
  .map(([id, role, parts, metadata]) => ({ id, role, ...metadata, parts }) as UIMessage);

/** A chat: UI messages with distinct ids. */
export const uiChat = fc.uniqueArray(uiMessage, { maxLength: 6, selector: (message) => message.id });
