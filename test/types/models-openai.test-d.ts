/**
 * The adapters take the client by shape: a real `OpenAI` (and `AzureOpenAI`) instance must assign
 * to our client-like types, and the bodies the adapters build must assign to the SDK's request types.
 */
import type { AzureOpenAI, OpenAI } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  OpenAIChatClientLike,
  OpenAIChatRequestBody,
  OpenAIResponsesClientLike,
  OpenAIResponsesRequestBody,
} from '../../src/models/openai-client.js';

describe('openai client-like types', () => {
  it('accepts a real OpenAI client for both adapters', () => {
    expectTypeOf<OpenAI>().toExtend<OpenAIChatClientLike>();
    expectTypeOf<OpenAI>().toExtend<OpenAIResponsesClientLike>();
    expectTypeOf<AzureOpenAI>().toExtend<OpenAIChatClientLike>();
    expectTypeOf<AzureOpenAI>().toExtend<OpenAIResponsesClientLike>();
  });

  it('builds request bodies the SDK accepts', () => {
    expectTypeOf<OpenAIChatRequestBody>().toExtend<ChatCompletionCreateParamsNonStreaming>();
    expectTypeOf<OpenAIResponsesRequestBody>().toExtend<ResponseCreateParamsNonStreaming>();
  });

  it('refuses a client without the method the adapter calls', () => {
    expectTypeOf<{ responses: OpenAI['responses'] }>().not.toExtend<OpenAIChatClientLike>();
    expectTypeOf<{ chat: OpenAI['chat'] }>().not.toExtend<OpenAIResponsesClientLike>();
  });
});
