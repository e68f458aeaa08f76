/**
 * `byCategory` (Penguin's priorities, made tool-safe): above `maxTokens`, drop the least important
 * content first — the oldest tool exchanges (a call together with all of its results), then the
 * oldest dialog turns, then context — until the history fits `targetTokens`. The latest turn and
 * system-category messages are never touched.
 * @module
 */
import { Message } from '../message/message.js';
import type { Category } from '../message/schema.js';
import { measure } from './budget.js';
import { invalidOption, optionsObject, positiveInteger, targetTokens } from './options.js';
import { changed, prepareTurns, unchanged, type Prepared } from './report.js';
import { aboveTokens } from './token-limit.js';
import type { Turns } from './turns.js';
import type { CompactionInput, CompactionResult, SyncCompactor } from './types.js';

/** The categories `byCategory` may drop. */
export type DroppableCategory = Exclude<Category, 'system'>;

/** Options of `byCategory`. */
export interface ByCategoryOptions {
  /** Compact when the history is above this many tokens. */
  maxTokens: number;
  /** Compact down to at most this many tokens. @default Math.floor(0.75 * maxTokens) */
  targetTokens?: number;
  /** What to drop first. @default ['tool_output', 'dialog', 'context'] */
  order?: readonly DroppableCategory[];
}

const DEFAULT_ORDER: readonly DroppableCategory[] = Object.freeze(['tool_output', 'dialog', 'context']);
const KEEP = 0;
const DROP = 1;
const REPLACE = 2;

/** The drop plan over the messages before the latest turn. */
class Plan {
  readonly state: Uint8Array;
  readonly replacements = new Map<number, { message: Message; tokens: number }>();
  kept: number;
  droppedAny = false;
  /** Tool results of each assistant message, as linked lists (`resultHead[a]`, `resultNext[r]`). */
  private resultHead: Int32Array | undefined;
  private resultNext: Int32Array | undefined;

  constructor(
    readonly prepared: Prepared,
    readonly turns: Turns,
    /** Start of the latest turn: nothing from here on is touched. */
    readonly limit: number,
  ) {
    this.state = new Uint8Array(limit);
    this.kept = prepared.total;
  }

  drop(i: number): void {
    const state = this.state[i];
    if (state === DROP) return;
    this.kept -= state === REPLACE ? (this.replacements.get(i)?.tokens ?? 0) : (this.prepared.counts[i] as number);
    this.state[i] = DROP;
    this.droppedAny = true;
  }

  private links(): { head: Int32Array; next: Int32Array } {
    if (this.resultHead === undefined || this.resultNext === undefined) {
      const head = new Int32Array(this.limit).fill(-1);
      const next = new Int32Array(this.limit).fill(-1);
      const callers = new Map<string, number>();
      const messages = this.prepared.messages;
      for (let i = 0; i < this.limit; i++) {
        const message = messages[i] as Message;
        if (message.toolCalls !== undefined) for (const call of message.toolCalls) callers.set(call.id, i);
        else if (message.role === 'tool') {
          const caller = callers.get(message.toolCallId as string);
          if (caller !== undefined) {
            next[i] = head[caller] as number;
            head[caller] = i;
          }
        }
      }
      this.resultHead = head;
      this.resultNext = next;
    }
    return { head: this.resultHead, next: this.resultNext };
  }

  private dropResults(caller: number): void {
    const { head, next } = this.links();
    for (let r = head[caller] as number; r >= 0; r = next[r] as number) this.drop(r);
  }

  /** Drops the oldest tool exchanges, keeping an assistant's text without its calls. */
  dropExchanges(budget: number): void {
    const messages = this.prepared.messages;
    for (let a = 0; a < this.limit && this.kept > budget; a++) {
      const message = messages[a] as Message;
      const exchange = message.toolCalls !== undefined && message.category === 'dialog';
      if (!exchange || this.turns.pinned[a] === 1 || this.state[a] !== KEEP) continue;
      this.dropResults(a);
      const replacement = withoutCalls(message);
      if (replacement === undefined) {
        this.drop(a);
        continue;
      }
      const tokens = this.prepared.counter.countMessage(replacement);
      this.replacements.set(a, { message: replacement, tokens });
      this.state[a] = REPLACE;
      this.kept -= (this.prepared.counts[a] as number) - tokens;
    }
  }

  /** Drops the dialog and tool messages of [start, end); context stays unless it carries calls. */
  private dropTurn(start: number, end: number): void {
    const messages = this.prepared.messages;
    for (let i = start; i < end; i++) {
      const message = messages[i] as Message;
      if (this.turns.pinned[i] === 1) continue;
      // A turn holds whole exchanges, so dropping every caller and result in it leaves no orphan.
      if (message.category !== 'context' || message.toolCalls !== undefined) this.drop(i);
    }
  }

  /** Drops the oldest turns (what precedes the first user message counts as the oldest). */
  dropTurns(budget: number): void {
    const cuts = this.turns.cuts;
    let start = 0;
    for (let k = 0; k < cuts.length && this.kept > budget; k++) {
      const end = cuts[k] as number;
      this.dropTurn(start, end);
      start = end;
    }
  }

  /** Drops context messages, oldest first. */
  dropContext(budget: number): void {
    const messages = this.prepared.messages;
    for (let i = 0; i < this.limit && this.kept > budget; i++) {
      const message = messages[i] as Message;
      if (message.category !== 'context' || this.turns.pinned[i] === 1 || this.state[i] === DROP) continue;
      this.drop(i);
      if (message.toolCalls !== undefined) this.dropResults(i);
    }
  }

  /** Once anything is dropped, the kept dialog must start at a user message (goaitools). */
  dropLeadingDialog(): void {
    const first = this.turns.cuts[0] as number;
    if (first > 0) this.dropTurn(0, first);
  }
}

/** The assistant message without its tool calls, or undefined when it has no text to keep. */
function withoutCalls(message: Message): Message | undefined {
  let text: string;
  if (typeof message.content === 'string') text = message.content;
  else text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  if (text.trim().length === 0) return undefined;
  // Message.with drops the cached `tokens` count of the old content.
  return Message.with(message, { toolCalls: undefined });
}

function checkOrder(factory: string, order: unknown): readonly DroppableCategory[] {
  if (order === undefined) return DEFAULT_ORDER;
  const allowed: readonly string[] = DEFAULT_ORDER;
  const valid =
    Array.isArray(order) &&
    order.length > 0 &&
    order.every((category) => typeof category === 'string' && allowed.includes(category)) &&
    new Set(order).size === order.length;
  if (!valid)
    throw invalidOption(factory, 'order', "distinct categories among 'tool_output', 'dialog', 'context'", order);
  return Object.freeze((order as DroppableCategory[]).slice());
}

function report(plan: Plan, name: string, budget: number): CompactionResult {
  const { prepared, state, limit } = plan;
  const messages = prepared.messages;
  const out: Message[] = [];
  let count = 0;
  let tokens = 0;
  let first: string | undefined;
  let last: string | undefined;
  let modifiedCount = 0;
  let tokensSaved = 0;
  for (let i = 0; i < limit; i++) {
    const message = messages[i] as Message;
    const replacement = state[i] === REPLACE ? plan.replacements.get(i) : undefined;
    if (state[i] === KEEP) out.push(message);
    else if (replacement !== undefined) {
      out.push(replacement.message);
      modifiedCount += 1;
      tokensSaved += (prepared.counts[i] as number) - replacement.tokens;
    } else {
      count += 1;
      tokens += prepared.counts[i] as number;
      first ??= message.id;
      last = message.id;
    }
  }
  for (let i = limit; i < messages.length; i++) out.push(messages[i] as Message);
  return changed({
    messages: out,
    strategy: name,
    removed: { count, tokens, firstId: first, lastId: last },
    modified: { count: modifiedCount, tokensSaved },
    tokensBefore: prepared.total,
    reachedTarget: plan.kept <= budget,
  });
}

/** Drops tool exchanges, then dialog turns, then context (or `order`), oldest first, down to `targetTokens`. */
export function byCategory(options: ByCategoryOptions): SyncCompactor {
  const name = 'byCategory';
  optionsObject(name, options);
  const max = positiveInteger(name, 'maxTokens', options.maxTokens);
  const target = targetTokens(name, options.targetTokens, max);
  const order = checkOrder(name, options.order);
  return Object.freeze({
    name,
    shouldCompact: (input: CompactionInput): boolean => aboveTokens(input, max),
    compact(input: CompactionInput): CompactionResult {
      const { prepared, turns } = prepareTurns(input);
      const budget = target / measure(prepared.counts, prepared.total, input.lastUsage).factor;
      if (prepared.total <= budget) return unchanged(prepared.messages, name, prepared.total, true);
      if (turns.cuts.length === 0) return unchanged(prepared.messages, name, prepared.total, false);
      const plan = new Plan(prepared, turns, turns.cuts[turns.cuts.length - 1] as number);
      for (const category of order) {
        if (plan.kept <= budget) break;
        switch (category) {
          case 'tool_output':
            plan.dropExchanges(budget);
            break;
          case 'dialog':
            plan.dropTurns(budget);
            break;
          case 'context':
            plan.dropContext(budget);
            break;
          default: {
            const unreachable: never = category;
            throw new Error(`unknown category ${String(unreachable)}`);
          }
        }
      }
      if (plan.droppedAny) plan.dropLeadingDialog();
      if (!plan.droppedAny && plan.replacements.size === 0)
        return unchanged(prepared.messages, name, prepared.total, false);
      return report(plan, name, budget);
    },
  });
}
