/**
 * `compactorOf`: a stored-session compaction names its strategy through the compaction registry —
 * an unknown name is the registry's `INVALID_ARGUMENT` (as `session.prune` gives it), a missing
 * limit is named as the caller knows it, and only the limits reach the strategy.
 */
import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../test/support/errors.js';
import { conversation } from '../../test/support/compaction.js';
import { resolvePrunePolicy } from '../compaction/policy.js';
import { STRATEGY_NAMES } from '../compaction/strategy-registry.js';
import { Session } from '../session/session.js';
import { compactorOf } from './compact.js';

describe('compactorOf', () => {
  it('answers an unknown strategy as session.prune does: INVALID_ARGUMENT naming it and listing the known ones', () => {
    const stored = thrownBy(() => compactorOf({ strategy: 'lru', turns: 3 }));
    const pruned = thrownBy(() => resolvePrunePolicy({ strategy: 'lru', limit: 3 } as never));
    expect([stored.code, stored.constructor]).toEqual([pruned.code, pruned.constructor]);
    expect(stored.message).toBe(`Unknown strategy "lru"; strategies: ${STRATEGY_NAMES.join(', ')}`);
    expect(pruned.message.replace(/strategies: .*/, '')).toBe(stored.message.replace(/strategies: .*/, ''));
  });

  it('names a missing limit as the caller knows it', () => {
    expect(thrownBy(() => compactorOf({ strategy: 'sliding_window' })).message).toBe(
      'strategy sliding_window needs turns',
    );
    expect(thrownBy(() => compactorOf({ strategy: 'messageLimit' }, (field) => `--${field}`)).message).toBe(
      '--strategy messageLimit needs --maxMessages',
    );
  });

  it('passes only the limits to the strategy (the CLI’s options name their counter by a string)', () => {
    const session = Session.create({ messages: conversation([{}, {}, {}, {}]) });
    const options = { strategy: 'token_buffer', maxTokens: 40, counter: 'estimate' };
    const { result } = session.compact(compactorOf(options), { force: true });
    expect(result?.compacted).toBe(true);
  });
});
