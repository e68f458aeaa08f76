/**
 * Our AI SDK wire types must agree with `ai` 6.x: the SDK is a dev dependency only, so this is
 * where the two are proven to agree — our output is a `generateText` prompt, and the SDK's
 * `ModelMessage` assigns to what `from` reads.
 */
import type {
  AssistantModelMessage,
  ModelMessage,
  ToolModelMessage,
  ToolResultPart,
  UserModelMessage,
  generateText,
} from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { aiSdk } from '../../src/formats/ai-sdk.js';
import type {
  AiSdkAssistantMessage,
  AiSdkModelMessage,
  AiSdkToolMessage,
  AiSdkToolResultPart,
  AiSdkUserMessage,
  AiSdkWireInput,
} from '../../src/formats/ai-sdk-wire.js';
import { Message } from '../../src/message/message.js';

type GenerateTextParams = Parameters<typeof generateText>[0];

describe('aiSdk wire types', () => {
  it('to() output builds generateText params', () => {
    const { system, messages } = aiSdk.to([Message.system('Be brief.'), Message.user('Hi')]);
    const params: GenerateTextParams = { model: 'openai/gpt-4o', system, messages };
    expectTypeOf(params).toExtend<GenerateTextParams>();
    expectTypeOf(messages).toExtend<ModelMessage[]>();
    expectTypeOf(system).toExtend<GenerateTextParams['system']>();
  });

  it('mirrors ModelMessage in both directions', () => {
    expectTypeOf<AiSdkModelMessage>().toExtend<ModelMessage>();
    expectTypeOf<ModelMessage>().toExtend<AiSdkModelMessage>();
    expectTypeOf<AiSdkUserMessage>().toExtend<UserModelMessage>();
    expectTypeOf<AiSdkAssistantMessage>().toExtend<AssistantModelMessage>();
    expectTypeOf<AiSdkToolMessage>().toExtend<ToolModelMessage>();
    expectTypeOf<AiSdkToolResultPart>().toExtend<ToolResultPart>();
    expectTypeOf<ToolResultPart>().toExtend<AiSdkToolResultPart>();
  });

  it('from() reads a prompt typed by the SDK', () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'Hi' }];
    expectTypeOf<{ system: string; messages: ModelMessage[] }>().toExtend<AiSdkWireInput>();
    expectTypeOf(aiSdk.from).toBeCallableWith({ messages });
  });
});
