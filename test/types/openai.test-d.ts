/**
 * Our OpenAI wire types must agree with the `openai` SDK's request types: the SDK is a dev
 * dependency only, so this is where the two are proven to agree — our output assigns to the SDK's
 * request types, and the SDK's message types assign to what `from` reads.
 */
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import type {
  EasyInputMessage,
  ResponseCreateParamsNonStreaming,
  ResponseFunctionToolCall,
  ResponseInputContent,
  ResponseInputItem,
  ResponseOutputMessage,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import { openaiChat } from '../../src/formats/openai-chat.js';
import type {
  ChatAssistantMessage,
  ChatMessageParam,
  ChatToolCall,
  ChatUserContentPart,
} from '../../src/formats/openai-chat-wire.js';
import { openaiResponses } from '../../src/formats/openai-responses.js';
import type {
  OpenaiResponsesWireInput,
  ResponsesEasyInputMessage,
  ResponsesFunctionCall,
  ResponsesFunctionCallOutput,
  ResponsesInputContent,
  ResponsesInputItem,
  ResponsesOutputMessage,
  ResponsesReasoningItem,
} from '../../src/formats/openai-responses-wire.js';
import { Message } from '../../src/message/message.js';

const history = [Message.system('Be brief.'), Message.user('Hi')];

describe('openaiChat wire types', () => {
  it('to() output builds a ChatCompletionCreateParamsNonStreaming', () => {
    const wire = openaiChat.to(history);
    const body: ChatCompletionCreateParamsNonStreaming = { model: 'gpt-4o', messages: wire.messages };
    expectTypeOf(body.messages).toEqualTypeOf<ChatCompletionMessageParam[]>();
    expectTypeOf(wire.messages).toExtend<ChatCompletionMessageParam[]>();
  });

  it('mirrors the SDK types in both directions', () => {
    expectTypeOf<ChatMessageParam>().toExtend<ChatCompletionMessageParam>();
    expectTypeOf<ChatCompletionMessageParam>().toExtend<ChatMessageParam>();
    expectTypeOf<ChatAssistantMessage>().toExtend<ChatCompletionAssistantMessageParam>();
    expectTypeOf<ChatUserContentPart>().toExtend<ChatCompletionContentPart>();
    expectTypeOf<ChatCompletionContentPart>().toExtend<ChatUserContentPart>();
    expectTypeOf<ChatToolCall>().toExtend<ChatCompletionMessageToolCall>();
    expectTypeOf<ChatCompletionMessageToolCall>().toExtend<ChatToolCall>();
  });

  it('from() reads a request typed by the SDK', () => {
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi' }],
    };
    expectTypeOf(openaiChat.from).toBeCallableWith({ messages: body.messages });
  });
});

describe('openaiResponses wire types', () => {
  it('to() output builds a ResponseCreateParamsNonStreaming', () => {
    const wire = openaiResponses.to(history);
    const body: ResponseCreateParamsNonStreaming = {
      model: 'gpt-5',
      input: wire.input,
      instructions: wire.instructions ?? null,
    };
    const spread: ResponseCreateParamsNonStreaming = { model: 'gpt-5', ...openaiResponses.to(history) };
    expectTypeOf(body.input).toExtend<ResponseCreateParamsNonStreaming['input']>();
    expectTypeOf(spread.instructions).toExtend<string | null | undefined>();
    expectTypeOf(wire.input).toExtend<ResponseInputItem[]>();
  });

  it('every item and content type is an SDK input item or content', () => {
    expectTypeOf<ResponsesInputItem>().toExtend<ResponseInputItem>();
    expectTypeOf<ResponsesEasyInputMessage>().toExtend<EasyInputMessage>();
    expectTypeOf<ResponsesOutputMessage>().toExtend<ResponseOutputMessage>();
    expectTypeOf<ResponsesFunctionCall>().toExtend<ResponseFunctionToolCall>();
    expectTypeOf<ResponsesFunctionCallOutput>().toExtend<ResponseInputItem.FunctionCallOutput>();
    expectTypeOf<ResponsesReasoningItem>().toExtend<ResponseReasoningItem>();
    expectTypeOf<ResponsesInputContent>().toExtend<ResponseInputContent>();
  });

  it('from() reads a request typed by the SDK, every item type included', () => {
    const body: ResponseCreateParamsNonStreaming = {
      model: 'gpt-5',
      instructions: null,
      input: [{ role: 'user', content: 'Hi' }],
    };
    expectTypeOf<{ instructions: string | null; input: ResponseInputItem[] }>().toExtend<OpenaiResponsesWireInput>();
    expectTypeOf(openaiResponses.from).toBeCallableWith({ instructions: body.instructions, input: body.input ?? [] });
  });
});
