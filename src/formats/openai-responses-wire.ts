/**
 * The Responses API request shapes (`instructions` and `input` of `POST /v1/responses`): our own
 * definitions mirroring the input item types of the `openai` package (`ResponseInputItem`), so
 * chatstate does not depend on the SDK. A type test proves our output assigns to the SDK's types.
 * @module
 */

/** Text input. */
export interface ResponsesInputText {
  type: 'input_text';
  text: string;
}

/** An image by URL, base64 data URL or uploaded file id. */
export interface ResponsesInputImage {
  type: 'input_image';
  detail: 'low' | 'high' | 'auto' | 'original';
  image_url?: string | null;
  file_id?: string | null;
}

/** A file inline (`file_data`, a data URL), uploaded (`file_id`) or by URL (`file_url`). */
export interface ResponsesInputFile {
  type: 'input_file';
  file_data?: string;
  file_id?: string | null;
  file_url?: string;
  filename?: string;
  detail?: 'auto' | 'low' | 'high';
}

/** A part of input message content or of a function call's output. */
export type ResponsesInputContent = ResponsesInputText | ResponsesInputImage | ResponsesInputFile;

/** A message item: user, system, developer, or an assistant's earlier text. */
export interface ResponsesEasyInputMessage {
  type?: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | ResponsesInputContent[];
  /** On assistant messages: intermediate commentary or the final answer. */
  phase?: 'commentary' | 'final_answer' | null;
}

/** Text the model produced; annotations (citations) are output-only and never sent back. */
export interface ResponsesOutputText {
  type: 'output_text';
  text: string;
  annotations: [];
}

/** A refusal the model produced. */
export interface ResponsesOutputRefusal {
  type: 'refusal';
  refusal: string;
}

/** An assistant message item with the id the API gave it (a reasoning item before it refers to it). */
export interface ResponsesOutputMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: Array<ResponsesOutputText | ResponsesOutputRefusal>;
  phase?: 'commentary' | 'final_answer' | null;
}

/** A function call; `arguments` is JSON text as the model wrote it. */
export interface ResponsesFunctionCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  namespace?: string;
  status?: 'in_progress' | 'completed' | 'incomplete';
}

/** The output of the function call with the same `call_id`. */
export interface ResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string | ResponsesInputContent[];
  id?: string | null;
  status?: 'in_progress' | 'completed' | 'incomplete' | null;
}

/** A reasoning item, sent back verbatim (with `encrypted_content` when the response was not stored). */
export interface ResponsesReasoningItem {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  content?: Array<{ type: 'reasoning_text'; text: string }>;
  encrypted_content?: string | null;
  status?: 'in_progress' | 'completed' | 'incomplete';
}

/**
 * An input item as `openaiResponses.to` writes it. Other item types (web search, computer use,
 * MCP, …) are written back verbatim from raw parts; they have these types' place in the list.
 */
export type ResponsesInputItem =
  | ResponsesEasyInputMessage
  | ResponsesOutputMessage
  | ResponsesFunctionCall
  | ResponsesFunctionCallOutput
  | ResponsesReasoningItem;

/** The request fields `openaiResponses.to` produces. */
export interface OpenaiResponsesWire {
  /** The leading system messages, joined. */
  instructions?: string;
  input: ResponsesInputItem[];
}

/**
 * What `openaiResponses.from` reads: the request fields as the SDK types them, including every item
 * type (read as raw parts when chatstate does not model it).
 */
export interface OpenaiResponsesWireInput {
  instructions?: string | null;
  input: string | ReadonlyArray<object>;
}
