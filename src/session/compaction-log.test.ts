import { describe, expect, it } from 'vitest';
import { compaction } from '../compaction/index.js';
import { Message } from '../message/message.js';
import { tokens } from '../tokens/index.js';
import { COMPACTIONS_KEY, MAX_COMPACTION_ENTRIES, compactionLog, withCompactionEntry } from './compaction-log.js';
import { Session } from './session.js';

function conversation(turns: number): Session {
  let session = Session.create({ messages: [Message.system('Be brief.')] });
  for (let i = 0; i < turns; i++)
    session = session.append(Message.user(`question ${i} `.repeat(20)), Message.assistant(`answer ${i} `.repeat(20)));
  return session;
}

describe('the compaction log', () => {
  it('records where a compaction cut, its strategy, and the tokens by category before and after', () => {
    const session = conversation(10);
    const last = session.messages.at(-1) as Message;
    const { session: compacted, result } = session.compact(compaction.slidingWindow({ turns: 2 }));
    expect(result?.compacted).toBe(true);
    const [entry] = compactionLog(compacted.metadata);
    expect(entry).toMatchObject({
      strategy: 'slidingWindow',
      afterMessageId: last.id,
      messagesBefore: 21,
      messagesAfter: 5,
      counter: tokens.estimate.name,
    });
    expect(entry?.tokensBefore.total).toBe(session.tokenCount());
    expect(entry?.tokensAfter.total).toBe(compacted.tokenCount());
    expect(entry?.tokensBefore.system).toBe(entry?.tokensAfter.system);
    expect((entry?.tokensBefore.dialog ?? 0) > (entry?.tokensAfter.dialog ?? 0)).toBe(true);
    // The session it came from is unchanged (values are immutable).
    expect(session.metadata[COMPACTIONS_KEY]).toBeUndefined();
  });

  it('adds nothing when nothing was compacted, and keeps a bounded log', () => {
    const session = conversation(1);
    const { session: same } = session.compact(compaction.slidingWindow({ turns: 5 }), { force: true });
    expect(same).toBe(session);
    const entry = compactionLog(conversation(3).compact(compaction.slidingWindow({ turns: 1 })).session.metadata)[0];
    if (entry === undefined) throw new Error('no entry');
    let metadata = {};
    for (let i = 0; i < MAX_COMPACTION_ENTRIES + 5; i++)
      metadata = withCompactionEntry(metadata, { ...entry, strategy: `s${i}` });
    const log = compactionLog(metadata);
    expect(log).toHaveLength(MAX_COMPACTION_ENTRIES);
    expect(log.at(-1)?.strategy).toBe(`s${MAX_COMPACTION_ENTRIES + 4}`);
    expect(log[0]?.strategy).toBe('s5');
  });

  it('leaves out entries that are not ones (metadata is anyone to write)', () => {
    expect(compactionLog({ [COMPACTIONS_KEY]: 'nope' })).toEqual([]);
    expect(compactionLog({ [COMPACTIONS_KEY]: [1, null, { at: 'x', strategy: 's' }] })).toEqual([]);
  });
});
