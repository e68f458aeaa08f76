/**
 * fast-check generators of OpenAI Agents JS items of every kind the SDK's `ModelItem` schema
 * accepts: messages of each role with every content part, function calls and their results in
 * each output shape, reasoning, hosted tool calls and unknown items, with and without ids, status
 * and `providerData` (empty text included: chatstate cannot hold an empty message, the item must
 * still come back).
 */
import { protocol, type AgentInputItem } from '@openai/agents-core';
import fc from 'fast-check';

const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('Weather in Oslo?', 'réseau 数据 emoji🙂', 'line\nbreak', '{"a":1}', ''),
);
const id = fc.constantFrom('msg_1', 'fc_2', 'rs_3', 'x', 'item-with-dash', 'has space');
const callId = fc.constantFrom('call_1', 'call_2', 'call_abc', 'toolu_01', 'c');
const status = fc.constantFrom('completed', 'in_progress', 'incomplete');
// Items are JSON (every session store, the SDK's own included, keeps them as JSON), and JSON has no
// -0: values are taken as JSON gives them back (seed -262645727 found a -0 that read back as 0).
const jsonData = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const providerData = fc.dictionary(fc.constantFrom('a', 'cache', 'annotations', 'n'), jsonData, {
  maxKeys: 2,
});

/** `fields` with each optional one present or not. */
function withOptional<T extends object>(
  base: fc.Arbitrary<T>,
  optional: Record<string, fc.Arbitrary<unknown>>,
): fc.Arbitrary<T> {
  return fc
    .tuple(base, fc.record(optional, { requiredKeys: [] }))
    .map(([required, extra]) => ({ ...required, ...extra }));
}

const inputText = withOptional(fc.record({ type: fc.constant('input_text'), text }), { providerData });
const inputImage = withOptional(
  fc.record({
    type: fc.constant('input_image'),
    image: fc.oneof(
      fc.constantFrom('https://example.com/cat.png', 'data:image/png;base64,iVBORw0KGgo='),
      fc.record({ id: fc.constantFrom('file-img') }),
    ),
  }),
  { detail: fc.constantFrom('auto', 'low', 'high') },
);
const inputFile = withOptional(
  fc.record({
    type: fc.constant('input_file'),
    file: fc.oneof(fc.constantFrom('https://example.com/a.pdf'), fc.record({ id: fc.constantFrom('file-123') })),
  }),
  { filename: fc.constantFrom('a.pdf', 'notes.txt') },
);
const outputText = withOptional(fc.record({ type: fc.constant('output_text'), text }), { providerData });
const refusal = fc.record({ type: fc.constant('refusal'), refusal: text });

const userMessage = withOptional(
  fc.record({
    role: fc.constant('user'),
    content: fc.oneof(text, fc.array(fc.oneof(inputText, inputText, inputImage, inputFile), { maxLength: 3 })),
  }),
  { type: fc.constant('message'), id, providerData },
);
const systemMessage = withOptional(fc.record({ role: fc.constant('system'), content: text }), {
  type: fc.constant('message'),
  providerData,
});
const assistantMessage = withOptional(
  fc.record({
    type: fc.constant('message'),
    role: fc.constant('assistant'),
    status,
    content: fc.array(fc.oneof(outputText, outputText, refusal), { maxLength: 3 }),
  }),
  { id, providerData },
);
const functionCall = withOptional(
  fc.record({
    type: fc.constant('function_call'),
    callId,
    name: fc.constantFrom('weather', 'book_table', 'lookup'),
    arguments: fc.oneof(
      fc.constantFrom('{}', '{"city":"Oslo"}', ''),
      fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
    ),
  }),
  { id, status, providerData },
);
const functionResult = withOptional(
  fc.record({
    type: fc.constant('function_call_result'),
    callId,
    name: fc.constantFrom('weather', 'lookup'),
    status,
    output: fc.oneof(
      text,
      fc.record({ type: fc.constant('text'), text }),
      fc.array(fc.oneof(inputText, inputImage), { minLength: 1, maxLength: 2 }),
    ),
  }),
  { id, providerData },
);
const reasoning = withOptional(
  fc.record({
    type: fc.constant('reasoning'),
    content: fc.array(fc.record({ type: fc.constant('input_text'), text }), { maxLength: 2 }),
  }),
  { id, providerData },
);
const hosted = withOptional(
  fc.record({ type: fc.constant('hosted_tool_call'), name: fc.constantFrom('web_search_call', 'file_search') }),
  {
    id,
    status,
    providerData,
  },
);
const unknown = withOptional(fc.record({ type: fc.constant('unknown') }), { id, providerData });

/** One item of any kind (calls and messages weighted as a real run has them). */
export const itemArb: fc.Arbitrary<AgentInputItem> = fc
  .oneof(
    { arbitrary: userMessage, weight: 3 },
    { arbitrary: systemMessage, weight: 1 },
    { arbitrary: assistantMessage, weight: 3 },
    { arbitrary: functionCall, weight: 3 },
    { arbitrary: functionResult, weight: 3 },
    { arbitrary: reasoning, weight: 1 },
    { arbitrary: hosted, weight: 1 },
    { arbitrary: unknown, weight: 1 },
  )
  .filter((item) => protocol.ModelItem.safeParse(item).success) as fc.Arbitrary<AgentInputItem>;

/** A history of items. */
export const itemsArb = fc.array(itemArb, { maxLength: 14 });

const spoken = fc.constantFrom('Weather in Oslo?', 'Sunny.', 'réseau 数据 emoji🙂', 'line\nbreak', '{"a":1}');

/**
 * Items as the runner writes them (user text, assistant output text, function calls, their
 * results, reasoning before a call): the converter must store each of these without a verbatim copy.
 */
export const runnerItemArb: fc.Arbitrary<AgentInputItem> = fc.oneof(
  fc.record({ type: fc.constant('message'), role: fc.constant('user'), content: spoken }),
  fc.record({
    type: fc.constant('message'),
    role: fc.constant('assistant'),
    status: fc.constant('completed'),
    content: fc.array(fc.record({ type: fc.constant('output_text'), text: spoken }), { minLength: 1, maxLength: 2 }),
  }),
  fc.record({
    type: fc.constant('function_call'),
    callId,
    name: fc.constantFrom('weather', 'lookup'),
    arguments: fc.constantFrom('{}', '{"city":"Oslo"}'),
    status: fc.constant('completed'),
  }),
  fc.record({
    type: fc.constant('function_call_result'),
    callId,
    name: fc.constantFrom('weather', 'lookup'),
    status: fc.constant('completed'),
    output: fc.oneof(spoken, fc.record({ type: fc.constant('text'), text: spoken })),
  }),
) as fc.Arbitrary<AgentInputItem>;
