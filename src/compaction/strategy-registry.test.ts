/**
 * The strategy registry: every name of each family builds its compactor, and an unknown name is
 * `INVALID_ARGUMENT` listing the names of its family (src/operations/compact.test.ts shows the
 * stored-session side giving the same error).
 */
import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../test/support/errors.js';
import { conversation } from '../../test/support/compaction.js';
import { Session } from '../session/session.js';
import { resolvePrunePolicy } from './policy.js';
import { PRUNE_STRATEGY_NAMES, STRATEGY_NAMES, pruneStrategy, storedStrategy } from './strategy-registry.js';

describe('the strategy registry', () => {
  const session = Session.create({ messages: conversation([{}, { tools: [1] }, {}, {}]) });

  it('builds every strategy a stored session may be compacted with, synchronously', () => {
    for (const name of STRATEGY_NAMES) {
      const compactor = storedStrategy(name).build({ strategy: name, maxMessages: 4, maxTokens: 40, turns: 2 });
      const { result } = session.compact(compactor, { force: true });
      expect(result?.messages.length, name).toBeGreaterThan(0);
    }
  });

  it('builds every prune policy (summary and vector_store with their collaborator)', () => {
    for (const name of PRUNE_STRATEGY_NAMES) {
      const compactor = pruneStrategy(name).build({
        strategy: name,
        turns: 1,
        maxTokens: 40,
        summarizer: () => 'before',
        archive: { archive: () => undefined },
      });
      expect(typeof compactor.compact, name).toBe('function');
    }
  });

  it('answers an unknown name with INVALID_ARGUMENT listing the names of its family', () => {
    const fromPrune = thrownBy(() => resolvePrunePolicy({ strategy: 'lru', limit: 3 } as never));
    const fromStored = thrownBy(() => storedStrategy('lru'));
    expect([fromPrune.code, fromStored.code]).toEqual(['INVALID_ARGUMENT', 'INVALID_ARGUMENT']);
    expect(fromPrune.message).toBe(`Unknown strategy "lru"; strategies: ${PRUNE_STRATEGY_NAMES.join(', ')}`);
    expect(fromStored.message).toBe(`Unknown strategy "lru"; strategies: ${STRATEGY_NAMES.join(', ')}`);
    expect(fromPrune.details).toEqual({ known: [...PRUNE_STRATEGY_NAMES] });
  });

  it('knows no name outside its family, nor an inherited one', () => {
    for (const name of ['summary', 'all', 'constructor', '__proto__', 'toString'])
      expect(thrownBy(() => storedStrategy(name)).code, name).toBe('INVALID_ARGUMENT');
    for (const name of ['messageLimit', 'slidingWindow', 'constructor', 42, undefined])
      expect(thrownBy(() => pruneStrategy(name)).code, String(name)).toBe('INVALID_ARGUMENT');
  });
});
