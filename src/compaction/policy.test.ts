import { describe, expect, it } from 'vitest';
import { conversation } from '../../test/support/compaction.js';
import type { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import type { TokenCounter } from '../tokens/counter.js';
import { resolvePrunePolicy, type PrunePolicy } from './policy.js';
import { codeOf } from '../../test/support/errors.js';

const ids = (messages: readonly Message[]): string[] => messages.map((m) => m.id);
const ten: TokenCounter = { name: 'ten', countText: () => 0, countMessage: () => 10 };

describe('resolvePrunePolicy', () => {
  const session = Session.create({ messages: conversation([{}, { tools: [1] }, {}, {}]) });

  it('all keeps everything', () => {
    expect(session.prune({ strategy: 'all' })).toBe(session);
    expect(resolvePrunePolicy({ strategy: 'all' }).name).toBe('all');
  });

  it('sliding_window keeps the last `limit` turns', () => {
    const pruned = session.prune({ strategy: 'sliding_window', limit: 2 });
    expect(ids(pruned.messages)).toEqual(['sys', 't2-1', 't2-2', 't3-1', 't3-2']);
    expect(pruned.version).toBe(session.version + 1);
  });

  it('token_buffer keeps the latest turns within `limit` tokens, with the policy’s own counter if given', () => {
    const pruned = session.prune({ strategy: 'token_buffer', limit: 50, counter: ten });
    expect(ids(pruned.messages)).toEqual(['sys', 't2-1', 't2-2', 't3-1', 't3-2']);
    const estimated = session.prune({ strategy: 'token_buffer', limit: 1_000_000 });
    expect(estimated).toBe(session);
  });

  it('summary keeps `limit` turns verbatim and summarizes the rest', async () => {
    const pruned = await session.prune({ strategy: 'summary', limit: 1, summarizer: () => 'what happened before' });
    expect(pruned.messages.length).toBe(1 + 1 + 2);
    expect(pruned.messages[1]?.metadata.summary).toBe(true);
  });

  it('summary rejects with SUMMARY_FAILED when the summarizer fails', async () => {
    await expect(session.prune({ strategy: 'summary', limit: 1, summarizer: () => ' ' })).rejects.toMatchObject({
      code: 'SUMMARY_FAILED',
    });
  });

  it('vector_store archives what it drops', async () => {
    const archived: Message[] = [];
    const pruned = await session.prune({
      strategy: 'vector_store',
      limit: 1,
      archive: { archive: (messages) => void archived.push(...messages) },
    });
    expect(ids(pruned.messages)).toEqual(['sys', 't3-1', 't3-2']);
    expect(archived.length).toBe(session.messages.length - 3);
  });

  it.each<[PrunePolicy, string]>([
    [{ strategy: 'summary', limit: 2 }, 'summarizer'],
    [{ strategy: 'vector_store', limit: 2 }, 'archive'],
  ])('%o throws MISSING_COLLABORATOR naming the %s', (policy, option) => {
    expect(() => resolvePrunePolicy(policy)).toThrow(
      expect.objectContaining({ code: 'MISSING_COLLABORATOR', message: expect.stringContaining(option) }),
    );
    expect(codeOf(() => session.prune(policy))).toBe('MISSING_COLLABORATOR');
  });

  it.each([0, -3, 2.5, Number.NaN, undefined, '4'])('rejects limit %s with INVALID_ARGUMENT', (limit) => {
    for (const strategy of ['sliding_window', 'token_buffer', 'summary', 'vector_store'] as const) {
      const policy = {
        strategy,
        limit,
        summarizer: () => 's',
        archive: { archive: () => undefined },
      } as unknown as PrunePolicy;
      expect(codeOf(() => resolvePrunePolicy(policy))).toBe('INVALID_ARGUMENT');
    }
  });

  it('rejects an unknown strategy or a policy that is not an object', () => {
    expect(codeOf(() => resolvePrunePolicy({ strategy: 'lru', limit: 3 } as never))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => resolvePrunePolicy(null as never))).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => resolvePrunePolicy({ strategy: 'token_buffer', limit: 3, counter: {} } as never))).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('uses the session’s counter option for token_buffer without its own', () => {
    const pruned = session.prune({ strategy: 'token_buffer', limit: 50 }, { counter: ten });
    expect(ids(pruned.messages)).toEqual(['sys', 't2-1', 't2-2', 't3-1', 't3-2']);
  });
});
