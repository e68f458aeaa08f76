/**
 * Our Anthropic wire types must be accepted by `@anthropic-ai/sdk`'s request types: the SDK is a
 * dev dependency only, so this is where the two are proven to agree.
 */
import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { describe, expectTypeOf, it } from 'vitest';
import { anthropic } from '../../src/formats/anthropic.js';
import type {
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from '../../src/formats/anthropic-wire.js';
import { Message } from '../../src/message/message.js';

describe('anthropic wire types', () => {
  it('to() output builds a MessageCreateParamsNonStreaming', () => {
    const wire = anthropic.to([Message.system('Be brief.'), Message.user('Hi')]);
    const params: MessageCreateParamsNonStreaming = {
      model: 'claude-x',
      max_tokens: 10,
      system: wire.system,
      messages: wire.messages,
    };
    expectTypeOf(params.messages).toEqualTypeOf<MessageParam[]>();
    expectTypeOf(wire.messages).toExtend<MessageParam[]>();
    expectTypeOf(wire.system).toExtend<MessageCreateParamsNonStreaming['system']>();
  });

  it('every block type is an SDK content block', () => {
    expectTypeOf<AnthropicMessage>().toExtend<MessageParam>();
    expectTypeOf<AnthropicContentBlock>().toExtend<ContentBlockParam>();
    expectTypeOf<AnthropicTextBlock>().toExtend<TextBlockParam>();
    expectTypeOf<AnthropicImageBlock>().toExtend<ContentBlockParam>();
    expectTypeOf<AnthropicDocumentBlock>().toExtend<ContentBlockParam>();
    expectTypeOf<AnthropicToolUseBlock>().toExtend<ContentBlockParam>();
    expectTypeOf<AnthropicToolResultBlock>().toExtend<ToolResultBlockParam>();
  });
});
