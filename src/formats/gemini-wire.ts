/**
 * The Gemini `generateContent` request shapes chatstate reads and writes: our own definitions,
 * mirroring `Content` and `Part` of `@google/genai` (a type test proves they are assignable), so
 * the library does not depend on the SDK at run time. Each part variant carries one kind of data,
 * as the API's `Part.data` one-of requires.
 * @module
 */
import type { JsonObject } from '../message/schema.js';

/** Inline base64 bytes. */
export interface GeminiBlob {
  mimeType: string;
  data: string;
}

/** Data referenced by URI (Files API, Cloud Storage, or a public URL). */
export interface GeminiFileData {
  fileUri: string;
  mimeType?: string;
}

/** Text, or with `thought: true` the model's reasoning. `thoughtSignature` must be sent back unchanged. */
export interface GeminiTextPart {
  text: string;
  thought?: boolean;
  thoughtSignature?: string;
}

/** Inline media. */
export interface GeminiInlineDataPart {
  inlineData: GeminiBlob;
}

/** Media by URI. */
export interface GeminiFileDataPart {
  fileData: GeminiFileData;
}

/** A tool call predicted by the model. */
export interface GeminiFunctionCall {
  id?: string;
  name: string;
  args: JsonObject;
}

/** A model turn's tool call; Gemini 3 requires the signature of the first call back unchanged. */
export interface GeminiFunctionCallPart {
  functionCall: GeminiFunctionCall;
  thoughtSignature?: string;
}

/** Media inside a function response. */
export type GeminiFunctionResponseMedia = GeminiInlineDataPart | GeminiFileDataPart;

/** The result of a tool call: `{ output }` on success, `{ error }` on failure. */
export interface GeminiFunctionResponse {
  id?: string;
  /** The called function's name (required by the API). */
  name: string;
  response: JsonObject;
  parts?: GeminiFunctionResponseMedia[];
}

/** A user turn's tool result. */
export interface GeminiFunctionResponsePart {
  functionResponse: GeminiFunctionResponse;
}

/**
 * Every part chatstate maps. Parts it does not model (executable code, code results, video
 * metadata, …) travel as raw parts and are written back exactly as they were read.
 */
export type GeminiPart =
  GeminiTextPart | GeminiInlineDataPart | GeminiFileDataPart | GeminiFunctionCallPart | GeminiFunctionResponsePart;

/** One conversation turn. */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** The system instruction: text parts, no role. */
export interface GeminiSystemInstruction {
  parts: GeminiTextPart[];
}

/** The request fields `gemini.to` writes and `gemini.from` reads (`systemInstruction` goes in `config`). */
export interface GeminiWire {
  systemInstruction?: GeminiSystemInstruction;
  contents: GeminiContent[];
}
