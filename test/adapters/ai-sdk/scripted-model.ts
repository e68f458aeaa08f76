/** A `MockLanguageModelV3` (the AI SDK's own test model) that streams one scripted step per call. */
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

/** One chunk of a model's stream (the provider spec's type, read off the mock: `ai` does not export it). */
type LanguageModelV3StreamPart =
  Awaited<ReturnType<MockLanguageModelV3['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;

/** What one model call streams. */
export type ScriptedStep =
  | { readonly text: string; readonly reasoning?: string }
  | { readonly calls: ReadonlyArray<{ readonly id: string; readonly tool: string; readonly input: unknown }> };

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function chunksOf(step: ScriptedStep, index: number): LanguageModelV3StreamPart[] {
  const chunks: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  if ('calls' in step) {
    for (const call of step.calls)
      chunks.push({ type: 'tool-call', toolCallId: call.id, toolName: call.tool, input: JSON.stringify(call.input) });
    chunks.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage });
    return chunks;
  }
  if (step.reasoning !== undefined)
    chunks.push(
      { type: 'reasoning-start', id: `r${index}` },
      { type: 'reasoning-delta', id: `r${index}`, delta: step.reasoning },
      { type: 'reasoning-end', id: `r${index}` },
    );
  const words = step.text.split(/(?<= )/);
  chunks.push({ type: 'text-start', id: `t${index}` });
  for (const word of words) chunks.push({ type: 'text-delta', id: `t${index}`, delta: word });
  chunks.push({ type: 'text-end', id: `t${index}` });
  chunks.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
  return chunks;
}

/** A mock model answering its calls with `steps`, in order (a call past the script fails the test). */
export function scriptedModel(steps: readonly ScriptedStep[]): MockLanguageModelV3 {
  let next = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      const step = steps[next];
      if (step === undefined) throw new Error(`the model was called ${next + 1} times; the script has ${steps.length}`);
      const chunks = chunksOf(step, next);
      next += 1;
      return { stream: simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: null }) };
    },
  });
}
