/**
 * The agent the openai-agents tests run: a real `Agent` with two real `tool()`s over the SDK's own
 * `ScriptedModel`, so every run is offline and the model requests are recorded.
 */
import { Agent, setTracingDisabled, tool } from '@openai/agents-core';
import { ScriptedModel, assistantMessage, functionCall, type ScriptedModelInput } from '@openai/agents-core/testing';
import { z } from 'zod';

setTracingDisabled(true);

/** Every tool call the fixture's tools received, in order (cities and orders). */
export const toolLog: string[] = [];

const weather = tool({
  name: 'weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    toolLog.push(`weather:${city}`);
    return `sunny and 21C in ${city}`;
  },
});

const booking = tool({
  name: 'book_table',
  description: 'Books a table',
  parameters: z.object({ city: z.string(), people: z.number() }),
  execute: async ({ city, people }) => {
    toolLog.push(`book:${city}:${people}`);
    return { booked: true, city, people, reference: `R-${city.length}${people}` };
  },
});

/** An agent over a scripted model answering `steps` in order. */
export function scriptedAgent(steps: ScriptedModelInput[]): { agent: Agent; model: ScriptedModel } {
  const model = new ScriptedModel(steps);
  const agent = new Agent({ name: 'concierge', instructions: 'Be brief.', model, tools: [weather, booking] });
  return { agent, model };
}

/** The scripted turns of the first process: a tool call, then two parallel ones, then a booking. */
export const FIRST_TURNS: ScriptedModelInput[] = [
  [functionCall('weather', { city: 'Oslo' }, { callId: 'call_oslo' })],
  [assistantMessage('Sunny in Oslo.')],
  [
    functionCall('weather', { city: 'Rome' }, { callId: 'call_rome' }),
    functionCall('weather', { city: 'Paris' }, { callId: 'call_paris' }),
  ],
  [assistantMessage('Sunny in both.')],
  [functionCall('book_table', { city: 'Rome', people: 2 }, { callId: 'call_book' })],
  [assistantMessage('Booked: R-42.')],
];

/** The user's inputs of the first process, one per run. */
export const FIRST_INPUTS = ['Weather in Oslo?', 'And in Rome and Paris?', 'Book a table for 2 in Rome.'];

/** The scripted turns of the resumed process. */
export const RESUMED_TURNS: ScriptedModelInput[] = [
  [functionCall('weather', { city: 'Tokyo' }, { callId: 'call_tokyo' })],
  [assistantMessage('Sunny in Tokyo too.')],
];

/** The resumed process's input. */
export const RESUMED_INPUT = 'And Tokyo?';
