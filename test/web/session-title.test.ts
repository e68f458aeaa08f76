/**
 * The session browser names a user's knowledge session after its user: its copy of
 * `KNOWLEDGE_PREFIX` must be the library's (the client bundles no server code), so this checks the
 * two side by side under Node.
 */
import { describe, expect, it } from 'vitest';
import { KNOWLEDGE_PREFIX, knowledgeSessionId } from '../../src/active-memory/knowledge.js';
import * as title from '../../src/web/session-title.js';

describe('session titles', () => {
  it("know the library's knowledge sessions, and call one its user's memory", () => {
    expect(title.KNOWLEDGE_PREFIX).toBe(KNOWLEDGE_PREFIX);
    const id = knowledgeSessionId('carol');
    expect(title.titleOf({ id, userId: 'carol' })).toBe('carol’s memory');
    expect(title.titleOf({ id, userId: 'carol', title: 'Carol prefers aisle seats.' })).toBe('carol’s memory');
    expect(title.titleOf({ id: 'trip', title: 'A trip' })).toBe('A trip');
    expect(title.titleOf({ id: 'trip' })).toBe('trip');
  });
});
