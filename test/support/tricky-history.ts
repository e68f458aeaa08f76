/** Valid histories with structural tricks the realistic generator never makes. */
import fc from 'fast-check';
import { Message } from '../../src/message/message.js';
import { historyArb } from './arbitraries.js';

const editArb = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom(
    'interject',
    'recatUser',
    'recatAssistant',
    'dropFirstUser',
    'summary',
    'moveResultLater',
    'userContext',
  ),
  flag: fc.boolean(),
});

let n = 0;
function applyEdit(history: Message[], edit: { at: number; kind: string; flag: boolean }): Message[] {
  const out = history.slice();
  const pick = (predicate: (m: Message) => boolean): number => {
    const indexes = out.map((m, i) => (predicate(m) ? i : -1)).filter((i) => i >= 0);
    return indexes.length === 0 ? -1 : (indexes[edit.at % indexes.length] as number);
  };
  switch (edit.kind) {
    case 'interject': {
      const i = pick((m) => m.toolCalls !== undefined);
      if (i >= 0) out.splice(i + 1, 0, Message.user('wait, also this', { id: `x${(n += 1)}` }));
      return out;
    }
    case 'recatUser': {
      const i = pick((m) => m.role === 'user');
      if (i >= 0) out[i] = Message.with(out[i] as Message, { category: edit.flag ? 'system' : 'context' });
      return out;
    }
    case 'recatAssistant': {
      const i = pick((m) => m.toolCalls !== undefined);
      if (i >= 0) out[i] = Message.with(out[i] as Message, { category: 'context' });
      return out;
    }
    case 'dropFirstUser': {
      const i = out.findIndex((m) => m.role === 'user');
      if (i >= 0) out.splice(i, 1);
      return out;
    }
    case 'summary': {
      let i = 0;
      while (i < out.length && out[i]?.role === 'system') i += 1;
      out.splice(i, 0, Message.context('earlier summary', { id: `s${(n += 1)}`, metadata: { summary: true } }));
      return out;
    }
    case 'moveResultLater': {
      const i = pick((m) => m.role === 'tool');
      if (i < 0) return out;
      const nextUser = out.findIndex((m, j) => j > i && m.role === 'user');
      if (nextUser < 0) return out;
      const [result] = out.splice(i, 1);
      out.splice(nextUser, 0, result as Message);
      return out;
    }
    default: {
      const i = pick((m) => m.role === 'user');
      if (i >= 0)
        out.splice(i, 0, Message.user('a user note kept as context', { id: `c${(n += 1)}`, category: 'context' }));
      return out;
    }
  }
}

/** A realistic history with up to five structural tricks applied (still valid: no orphans). */
export const trickyHistoryArb: fc.Arbitrary<Message[]> = fc
  .tuple(historyArb({ maxTurns: 6 }), fc.array(editArb, { maxLength: 5 }))
  .map(([history, edits]) => edits.reduce(applyEdit, history));
