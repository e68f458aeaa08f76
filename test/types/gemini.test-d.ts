/**
 * Our Gemini wire types must be accepted by `@google/genai`'s request types: the SDK is a dev
 * dependency only, so this is where the two are proven to agree.
 */
import type { Content, GenerateContentParameters, Part } from '@google/genai';
import { describe, expectTypeOf, it } from 'vitest';
import { gemini } from '../../src/formats/gemini.js';
import type {
  GeminiContent,
  GeminiFunctionCallPart,
  GeminiFunctionResponsePart,
  GeminiPart,
  GeminiSystemInstruction,
  GeminiTextPart,
} from '../../src/formats/gemini-wire.js';
import { Message } from '../../src/message/message.js';

describe('gemini wire types', () => {
  it('to() output builds GenerateContentParameters', () => {
    const wire = gemini.to([Message.system('Be brief.'), Message.user('Hi')]);
    const params: GenerateContentParameters = {
      model: 'gemini-x',
      contents: wire.contents,
      config: { systemInstruction: wire.systemInstruction },
    };
    expectTypeOf(params.model).toBeString();
    expectTypeOf(wire.contents).toExtend<Content[]>();
    expectTypeOf(wire.systemInstruction).toExtend<Content | undefined>();
  });

  it('every part variant is an SDK Part', () => {
    expectTypeOf<GeminiContent>().toExtend<Content>();
    expectTypeOf<GeminiSystemInstruction>().toExtend<Content>();
    expectTypeOf<GeminiPart>().toExtend<Part>();
    expectTypeOf<GeminiTextPart>().toExtend<Part>();
    expectTypeOf<GeminiFunctionCallPart>().toExtend<Part>();
    expectTypeOf<GeminiFunctionResponsePart>().toExtend<Part>();
  });
});
