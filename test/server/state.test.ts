/**
 * State blobs over HTTP for stateless clients: encode, decode and append, locked to a provider and
 * signed with a subkey of each tenant (another tenant's blob is rejected); without a state key the
 * routes answer 501.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/stores/memory.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { startTestServer, type TestServer } from './server-harness.js';

let store: SessionStore;
let server: TestServer;

beforeAll(async () => {
  store = memoryStore();
  server = await startTestServer(store, { stateKey: 'a state key of more than sixteen characters' });
});
afterAll(async () => {
  await server.close();
  await store.close();
});

const history = [
  { id: 'u1', role: 'user', content: 'Book a table for two' },
  { id: 'a1', role: 'assistant', content: 'For which evening?' },
];

describe('state blobs over HTTP', () => {
  it('encodes, decodes and appends; the blob is locked to its provider', async () => {
    const key = server.keys.memberA;
    const encoded = await server.call('POST', '/state/encode', {
      key,
      body: { provider: 'openaiChat', messages: history },
    });
    expect(encoded.status).toBe(200);
    const { state } = encoded.json as { state: string };
    expect(state).not.toContain('Book a table');
    const appended = await server.call('POST', '/state/append', {
      key,
      body: { provider: 'openaiChat', state, messages: [{ id: 'u2', role: 'user', content: 'Friday' }] },
    });
    expect(appended.json).toMatchObject({ dropped: 0 });
    const next = (appended.json as { state: string }).state;
    const decoded = await server.call('POST', '/state/decode', { key, body: { provider: 'openaiChat', state: next } });
    expect(decoded.json).toMatchObject({
      messages: [{ id: 'u1' }, { id: 'a1' }, { id: 'u2', content: 'Friday' }],
      processedLength: 2,
    });
    expect((decoded.json as { rejected?: unknown }).rejected).toBeUndefined();
    const otherProvider = await server.call('POST', '/state/decode', {
      key,
      body: { provider: 'anthropic', state: next },
    });
    expect(otherProvider.json).toMatchObject({ messages: [], rejected: { reason: expect.any(String) } });
  });

  it("a tenant's blob does not open for another tenant, and tampering is rejected", async () => {
    const mine = await server.call('POST', '/state/encode', {
      key: server.keys.adminA,
      body: { provider: 'anthropic', messages: history, encrypt: true },
    });
    const { state } = mine.json as { state: string };
    const theirs = await server.call('POST', '/state/decode', {
      key: server.keys.adminB,
      body: { provider: 'anthropic', state },
    });
    expect(theirs.json).toMatchObject({ messages: [], rejected: { reason: expect.any(String) } });
    expect(theirs.text).not.toContain('Book a table');
    const flipped = `${state.slice(0, -3)}${state.endsWith('A') ? 'B' : 'A'}${state.slice(-2)}`;
    const tampered = await server.call('POST', '/state/decode', {
      key: server.keys.adminA,
      body: { provider: 'anthropic', state: flipped },
    });
    expect(tampered.json).toMatchObject({ messages: [], rejected: {} });
    const invalid = await server.call('POST', '/state/encode', {
      key: server.keys.adminA,
      body: { provider: 'nobody', messages: history },
    });
    expect(invalid.status).toBe(400);
    expect((await server.call('POST', '/state/encode', { body: { provider: 'anthropic', messages: [] } })).status).toBe(
      401,
    );
  });

  it('answers 501 UNSUPPORTED without a state key', async () => {
    const plain = await startTestServer(store);
    try {
      const answer = await plain.call('POST', '/state/encode', {
        key: plain.keys.adminA,
        body: { provider: 'openaiChat', messages: history },
      });
      expect(answer.status).toBe(501);
      expect(answer.json).toMatchObject({ code: 'UNSUPPORTED' });
    } finally {
      await plain.close();
    }
  });
});
