/**
 * User and agent ids that are not well-formed Unicode (a lone surrogate: `"\ud800"`, `"\udc00"`)
 * cannot be stored as UTF-8 text — Redis kept U+FFFD instead and merged users — so every way an
 * owner id comes in refuses them with the same `INVALID_ID`, from one check (`assertOwnerId`).
 * Each store's side is in the conformance kit (`hostile-ids`).
 */
import { describe, expect, it } from 'vitest';
import { createSessionHandle } from '../../src/active-memory/session-handle.js';
import { assertOwnerId, isValidOwnerId, isWellFormed } from '../../src/ids.js';
import { Session } from '../../src/session/session.js';
import { checkListQuery } from '../../src/store/list-query.js';
import { valueNamespace } from '../../src/store/values.js';
import { memoryStore } from '../../src/stores/memory.js';
import { outcomeOf } from '../support/errors.js';

const ILL_FORMED: Array<[string, string]> = [
  ['a lone high surrogate', '\ud800'],
  ['a lone low surrogate', '\udc00'],
  ['a lone surrogate inside', 'a\ud800b'],
  ['two high surrogates', '\udbff\udbff'],
  ['a pair cut at the end', 'end\ud83d'],
  ['a pair in the wrong order', '\ude00\ud83d'],
];

describe('ids that are not well-formed Unicode', () => {
  it.each(ILL_FORMED)('%s is refused with INVALID_ID everywhere an owner id comes in', (_name, id) => {
    expect(isWellFormed(id)).toBe(false);
    expect(isValidOwnerId(id)).toBe(false);
    const ways: Array<[string, () => unknown]> = [
      ['assertOwnerId', () => assertOwnerId(id, 'userId')],
      ['Session.create userId', () => Session.create({ userId: id })],
      ['Session.create agentId', () => Session.create({ agentId: id })],
      ['withUser', () => Session.create().withUser(id)],
      ['withAgent', () => Session.create().withAgent(id)],
      ['list userId', () => checkListQuery({ userId: id }, 'test')],
      ['list agentId', () => checkListQuery({ agentId: id }, 'test')],
      ['user values', () => valueNamespace({ scope: 'user', userId: id })],
      ['agent values', () => valueNamespace({ scope: 'agent', agentId: id, userId: 'u' })],
      ['a session handle', () => createSessionHandle({ store: memoryStore(), sessionId: 's1', userId: id })],
    ];
    for (const [way, run] of ways) expect([way, outcomeOf(run)]).toEqual([way, 'INVALID_ID']);
  });

  it('well-formed ids, surrogate pairs and U+FFFD included, stay distinct users', () => {
    for (const id of ['\ufffd', '\ud83d\ude00', 'a\ufffdb', 'ü', '用户', ' ']) {
      expect(assertOwnerId(id)).toBe(id);
      expect(Session.create({ userId: id }).userId).toBe(id);
    }
    expect(valueNamespace({ scope: 'user', userId: '\ufffd' })).not.toBe(
      valueNamespace({ scope: 'user', userId: '\ufffe' }),
    );
  });

  it('empty and over-long ids are INVALID_ID too, and the message says which rule', () => {
    expect(outcomeOf(() => assertOwnerId(''))).toBe('INVALID_ID');
    expect(outcomeOf(() => assertOwnerId('x'.repeat(257)))).toBe('INVALID_ID');
    expect(outcomeOf(() => assertOwnerId(42))).toBe('INVALID_ID');
    expect(() => assertOwnerId('\ud800', 'userId')).toThrow(/userId .*well-formed Unicode/);
    expect(() => assertOwnerId('', 'userId')).toThrow(/non-empty string of at most 256/);
  });
});
