/**
 * The Anthropic and AI SDK adapters take their clients by shape: a real `Anthropic` instance and the
 * real `generateText` of `ai` (with a real provider model) must assign to our client-like types,
 * and the request bodies the adapters build must assign to the SDKs' request types.
 */
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { embed, generateText, streamText, type LanguageModel } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AiSdkGenerateText,
  AiSdkGenerateTextOptions,
  AiSdkLanguageModel,
} from '../../src/models/ai-sdk-client.js';
import { aiSdkModel } from '../../src/models/ai-sdk.js';
import type { AnthropicClientLike, AnthropicRequestBody } from '../../src/models/anthropic-client.js';
import { anthropicModel } from '../../src/models/anthropic.js';
import type { ChatModel } from '../../src/models/types.js';

type GenerateTextParams = Parameters<typeof generateText>[0];

describe('anthropic client-like types', () => {
  it('accepts a real Anthropic client', () => {
    expectTypeOf<Anthropic>().toExtend<AnthropicClientLike>();
    expectTypeOf(anthropicModel).toBeCallableWith({
      client: new Anthropic({ apiKey: 'k' }),
      model: 'claude-sonnet-4-6',
      maxTokens: 1024,
    });
  });

  it('builds request bodies the SDK accepts', () => {
    expectTypeOf<AnthropicRequestBody>().toExtend<MessageCreateParamsNonStreaming>();
  });

  it('refuses a client without messages.create', () => {
    expectTypeOf<{ models: Anthropic['models'] }>().not.toExtend<AnthropicClientLike>();
  });
});

describe('ai client-like types', () => {
  const openai = createOpenAI({ apiKey: 'k' });

  it('accepts the real generateText with a provider model or a gateway id', () => {
    expectTypeOf(generateText).toExtend<AiSdkGenerateText<LanguageModel>>();
    expectTypeOf(openai.chat('gpt-4o')).toExtend<AiSdkLanguageModel>();
    expectTypeOf(aiSdkModel({ generateText, model: openai.chat('gpt-4o') })).toEqualTypeOf<ChatModel>();
    expectTypeOf(aiSdkModel({ generateText, model: 'openai/gpt-4o', maxRetries: 0 })).toEqualTypeOf<ChatModel>();
  });

  it('builds generateText options the SDK accepts', () => {
    expectTypeOf<AiSdkGenerateTextOptions<LanguageModel>>().toExtend<GenerateTextParams>();
  });

  it('refuses functions that are not generateText, and models that are not language models', () => {
    expectTypeOf(streamText).not.toExtend<AiSdkGenerateText<LanguageModel>>();
    expectTypeOf(embed).not.toExtend<AiSdkGenerateText<LanguageModel>>();
    // @ts-expect-error an embedding model is not a language model generateText takes
    aiSdkModel({ generateText, model: openai.embedding('text-embedding-3-small') });
  });
});
