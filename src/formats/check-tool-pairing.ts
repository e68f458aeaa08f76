/**
 * The tool-call/result pairing rules every provider enforces, checked over a flat list of events
 * that each format's `validate` extracts from its own shapes.
 * @module
 */
import type { WireProblem } from './types.js';
import { problem } from './wire-json.js';

/** One step of a wire history, as far as tool pairing is concerned. */
export type PairingEvent =
  /** A tool call with its id. */
  | { readonly kind: 'call'; readonly id: string; readonly path: string }
  /** A tool result answering `id`. */
  | { readonly kind: 'result'; readonly id: string; readonly path: string }
  /** A message that is neither a call nor a result: in `adjacent` mode it closes the open calls. */
  | { readonly kind: 'boundary'; readonly path: string };

/**
 * `adjacent`: results must come right after the message that made the calls, before any other
 * message (Chat Completions, the AI SDK). `after`: a result may come anywhere after its call
 * (Responses input items).
 */
export type PairingMode = 'adjacent' | 'after';

/** Orphan and duplicate results, duplicate call ids and calls left without a result. */
export function checkToolPairing(events: readonly PairingEvent[], mode: PairingMode): WireProblem[] {
  const problems: WireProblem[] = [];
  const open = new Map<string, string>(); // call id -> path of the call
  const calls = new Set<string>();
  const answered = new Set<string>();
  const closeOpen = (): void => {
    for (const [id, path] of open)
      problems.push(
        problem(
          'missing_tool_result',
          path,
          `Tool call ${id} has no result${mode === 'adjacent' ? ' right after it' : ''}`,
        ),
      );
    open.clear();
  };
  for (const event of events) {
    switch (event.kind) {
      case 'boundary':
        if (mode === 'adjacent') closeOpen();
        break;
      case 'call':
        if (calls.has(event.id)) {
          problems.push(problem('duplicate_tool_call', event.path, `Tool call id ${event.id} is used more than once`));
          break;
        }
        calls.add(event.id);
        open.set(event.id, event.path);
        break;
      case 'result':
        if (open.delete(event.id)) answered.add(event.id);
        else if (answered.has(event.id))
          problems.push(problem('duplicate_tool_result', event.path, `Tool call ${event.id} already has a result`));
        else
          problems.push(
            problem(
              'orphan_tool_result',
              event.path,
              `Tool result for ${event.id} does not follow a call with that id`,
            ),
          );
        break;
      default: {
        const unreachable: never = event;
        throw new Error(`unknown pairing event ${JSON.stringify(unreachable)}`);
      }
    }
  }
  closeOpen();
  return problems;
}
