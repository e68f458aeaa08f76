/**
 * `"__proto__"` keys: in user data (tool arguments, metadata, provider options, raw parts,
 * variables' values, stored values) they are data, kept as own keys exactly as `JSON.parse` makes
 * them, without touching any prototype; where a key is an identifier (a variable name, a value
 * key, an id) they are refused with a typed error — never dropped. Store round trips are in the
 * conformance kit (`src/testing/specs/hostile-values.ts`); these are the store-independent ways in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkKey, checkValue } from '../../src/active-memory/checks.js';
import type { ErrorCode } from '../../src/errors.js';
import { formats } from '../../src/formats/index.js';
import { assertValidId } from '../../src/ids.js';
import { Message, type MessageInput } from '../../src/message/message.js';
import type { ProviderName } from '../../src/message/schema.js';
import { Session } from '../../src/session/session.js';
import { checkValueKey } from '../../src/store/values.js';
import { outcomeOf } from '../support/errors.js';

function parsed<T = Record<string, never>>(text: string): T {
  return JSON.parse(text) as T;
}

/** The own `"__proto__"` value of `value` (undefined when it has none), checking the prototype is untouched. */
function ownProto(value: unknown): unknown {
  expect(typeof value === 'object' && value !== null).toBe(true);
  expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  return Object.getOwnPropertyDescriptor(value, '__proto__')?.value;
}

afterEach(() => {
  // Nothing anywhere changed Object.prototype.
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe('"__proto__" keys in user data are kept as own keys', () => {
  const ARGS = '{"__proto__":{"polluted":true},"city":"Paris"}';
  const places: Array<[string, () => unknown, (message: Message) => unknown]> = [
    [
      'metadata',
      () => ({ role: 'user', content: 'x', metadata: parsed('{"__proto__":{"polluted":true},"k":1}') }),
      (message) => message.metadata,
    ],
    [
      'nested metadata',
      () => ({ role: 'user', content: 'x', metadata: { nested: parsed('{"__proto__":{"polluted":true}}') } }),
      (message) => message.metadata.nested,
    ],
    [
      'tool arguments given as an object',
      () => ({ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'f', arguments: parsed(ARGS) }] }),
      (message) => JSON.parse(message.toolCalls?.[0]?.arguments ?? '{}'),
    ],
    [
      'tool arguments given as text',
      () => ({ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'f', arguments: ARGS }] }),
      (message) => JSON.parse(message.toolCalls?.[0]?.arguments ?? '{}'),
    ],
    [
      'tool-call provider options',
      () => ({
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c', name: 'f', providerOptions: parsed('{"__proto__":{"polluted":true}}') }],
      }),
      (message) => message.toolCalls?.[0]?.providerOptions,
    ],
    [
      'a provider’s options',
      () => ({
        role: 'user',
        content: [
          { type: 'text', text: 'x', providerOptions: { anthropic: parsed('{"__proto__":{"polluted":true}}') } },
        ],
      }),
      (message) => (message.content[0] as { providerOptions: Record<string, unknown> }).providerOptions.anthropic,
    ],
    [
      'a raw part',
      () => ({
        role: 'user',
        content: [{ type: 'raw', provider: 'gemini', value: parsed('{"__proto__":{"polluted":true}}') }],
      }),
      (message) => (message.content[0] as { value: unknown }).value,
    ],
    [
      'token counts',
      () => ({ role: 'user', content: 'x', tokens: parsed('{"__proto__":3}') }),
      (message) => message.tokens,
    ],
  ];

  it.each(places)('in %s, through Message.create, Message.fromStored and a JSON round trip', (place, build, pick) => {
    const created = Message.create(build() as MessageInput);
    const expected = place === 'token counts' ? 3 : { polluted: true };
    expect(ownProto(pick(created))).toEqual(expected);
    // As a store writes and reads it.
    const record = JSON.parse(JSON.stringify(created)) as unknown;
    const read = Message.fromStored(record);
    expect(ownProto(pick(read))).toEqual(expected);
    expect(JSON.stringify(read)).toBe(JSON.stringify(created));
    // Changing the message keeps it.
    expect(ownProto(pick(Message.with(created, { timestamp: '2025-02-02T00:00:00.000Z' })))).toEqual(expected);
  });

  it('in session metadata and in variables’ values, through create, withMetadata, withVariable, toJSON and fromJSON', () => {
    const session = Session.create({
      id: 's1',
      metadata: parsed('{"__proto__":{"polluted":true}}'),
      variables: { plan: parsed('{"__proto__":[1]}') },
    })
      .withMetadata(parsed('{"extra":{"__proto__":2}}'))
      .withVariable('more', parsed('{"__proto__":"text"}'));
    const again = Session.fromJSON(JSON.parse(JSON.stringify(session)));
    for (const each of [session, again]) {
      expect(ownProto(each.metadata)).toEqual({ polluted: true });
      expect(ownProto(each.metadata.extra)).toBe(2);
      expect(ownProto(each.variables.plan)).toEqual([1]);
      expect(ownProto(each.variables.more)).toBe('text');
    }
  });

  it('in values stored through active memory', () => {
    expect(ownProto(checkValue('prefs', parsed('{"__proto__":{"polluted":true}}')))).toEqual({ polluted: true });
  });

  const PROVIDERS: readonly ProviderName[] = ['openaiChat', 'openaiResponses', 'anthropic', 'gemini', 'aiSdk'];
  it.each(PROVIDERS)('in tool arguments through %s.to and .from', (provider) => {
    const history = [
      Message.user('Where?'),
      Message.assistant('', { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: ARGS }] }),
      Message.tool('call_1', 'found', { name: 'lookup' }),
    ];
    const format = formats[provider];
    const wire = format.to(history);
    expect(format.validate(wire)).toEqual([]);
    const read = format.from(JSON.parse(JSON.stringify(wire)) as never);
    const call = read.messages.find((message) => message.toolCalls !== undefined)?.toolCalls?.[0];
    expect(ownProto(JSON.parse(call?.arguments ?? '{}'))).toEqual({ polluted: true });
    expect(JSON.parse(call?.arguments ?? '{}')).toEqual(JSON.parse(ARGS));
  });

  it('in a provider’s raw parts and the AI SDK’s provider options, through to and from', () => {
    const raw = Message.assistant([
      {
        type: 'raw',
        provider: 'anthropic',
        value: parsed('{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{"__proto__":{"q":1}}}'),
      },
    ]);
    const anthropicWire = formats.anthropic.to([Message.user('q'), raw]);
    const block = (anthropicWire.messages[1]?.content as Array<{ input?: unknown }>)[0];
    expect(ownProto(block?.input)).toEqual({ q: 1 });
    const back = formats.anthropic.from(JSON.parse(JSON.stringify(anthropicWire)) as never).messages[1];
    expect(ownProto((back?.content as unknown as Array<{ value: { input: unknown } }>)[0]?.value.input)).toEqual({
      q: 1,
    });

    const options = Message.user([
      { type: 'text', text: 'x', providerOptions: { openai: parsed('{"__proto__":{"polluted":true}}') } },
    ]);
    const aiWire = formats.aiSdk.to([options]);
    const part = (aiWire.messages[0]?.content as Array<{ providerOptions?: Record<string, unknown> }>)[0];
    expect(ownProto(part?.providerOptions?.openai)).toEqual({ polluted: true });
    const readBack = formats.aiSdk.from(JSON.parse(JSON.stringify(aiWire)) as never).messages[0];
    expect(
      ownProto(
        (readBack?.content as unknown as Array<{ providerOptions: Record<string, unknown> }>)[0]?.providerOptions
          .openai,
      ),
    ).toEqual({ polluted: true });
    // A provider key named "__proto__" is a key too.
    const odd = formats.aiSdk.from({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'x', providerOptions: parsed('{"__proto__":{"a":1}}') }] },
      ],
    } as never);
    expect(
      ownProto(
        (odd.messages[0]?.content as unknown as Array<{ providerOptions: Record<string, unknown> }>)[0]
          ?.providerOptions,
      ),
    ).toEqual({ a: 1 });
  });

  it('in unknown fields of an OpenAI Chat message, kept as a raw part', () => {
    const read = formats.openaiChat.from(
      parsed(
        '{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a","__proto__":{"odd":true}}]}',
      ) as never,
    );
    const raw = (read.messages[1]?.content as Array<{ type: string; value?: unknown }>).find(
      (part) => part.type === 'raw',
    );
    expect(ownProto(raw?.value)).toEqual({ odd: true });
  });
});

describe('"__proto__" where a key is an identifier is refused with a typed error', () => {
  const refusals: Array<[string, () => unknown, ErrorCode]> = [
    [
      'a variable name in Session.create',
      () => Session.create({ variables: parsed('{"__proto__":1}') }),
      'INVALID_SESSION',
    ],
    [
      'a variable name in Session.fromJSON',
      () => Session.fromJSON({ ...Session.create({ id: 's1' }).toJSON(), variables: parsed('{"__proto__":1}') }),
      'INVALID_SESSION',
    ],
    ['a variable name in withVariable', () => Session.create().withVariable('__proto__', 1), 'INVALID_ARGUMENT'],
    ['an active-memory key', () => checkKey('__proto__'), 'INVALID_ARGUMENT'],
    ['a session id', () => assertValidId('__proto__'), 'INVALID_ID'],
    [
      'a message field',
      () => Message.create(parsed<MessageInput>('{"role":"user","content":"x","__proto__":{}}')),
      'INVALID_MESSAGE',
    ],
    [
      'a content part field',
      () =>
        Message.create(parsed<MessageInput>('{"role":"user","content":[{"type":"text","text":"x","__proto__":{}}]}')),
      'INVALID_MESSAGE',
    ],
  ];
  it.each(refusals)('%s', (_name, run, code) => {
    expect(outcomeOf(run)).toBe(code);
  });

  it('a stored value key "__proto__" is a key like any other (stored under its namespace, never an object member)', () => {
    expect(checkValueKey('__proto__')).toBe('__proto__');
  });
});
