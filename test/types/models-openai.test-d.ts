/**
 * The adapters take the client by shape: a real `OpenAI` (and `AzureOpenAI`) instance must assign
 * to our client-like types, and the bodies the adapters build must assign to the SDK's request types.
 */
import type { AzureOpenAI, OpenAI } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  OpenaiChatClientLike,
  OpenaiChatRequestBody,
  OpenaiResponsesClientLike,
  OpenaiResponsesRequestBody,
} from '../../src/models/openai-client.js';
import type {
  OpenAIChatClientLike as OldChatClientLike,
  OpenAIResponsesRequestBody as OldResponsesRequestBody,
} from '../../src/models/index.js';

describe('openai client-like types', () => {
  it('accepts a real OpenAI client for both adapters', () => {
    expectTypeOf<OpenAI>().toExtend<OpenaiChatClientLike>();
    expectTypeOf<OpenAI>().toExtend<OpenaiResponsesClientLike>();
    expectTypeOf<AzureOpenAI>().toExtend<OpenaiChatClientLike>();
    expectTypeOf<AzureOpenAI>().toExtend<OpenaiResponsesClientLike>();
  });

  it('builds request bodies the SDK accepts', () => {
    expectTypeOf<OpenaiChatRequestBody>().toExtend<ChatCompletionCreateParamsNonStreaming>();
    expectTypeOf<OpenaiResponsesRequestBody>().toExtend<ResponseCreateParamsNonStreaming>();
  });

  it('refuses a client without the method the adapter calls', () => {
    expectTypeOf<{ responses: OpenAI['responses'] }>().not.toExtend<OpenaiChatClientLike>();
    expectTypeOf<{ chat: OpenAI['chat'] }>().not.toExtend<OpenaiResponsesClientLike>();
  });
});

describe('old spellings of the renamed types', () => {
  it('are the same types under their 0.1 names', () => {
    expectTypeOf<OldChatClientLike>().toEqualTypeOf<OpenaiChatClientLike>();
    expectTypeOf<OldResponsesRequestBody>().toEqualTypeOf<OpenaiResponsesRequestBody>();
  });
});
