/**
 * State blobs for stateless clients: encode a history into an opaque, signed (optionally
 * encrypted) blob locked to a provider, decode one, and append to one. Each tenant signs with a
 * key of its own, derived from the server's state key, so one tenant's blob does not open for
 * another.
 * @module
 */
import { hkdfSync } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { UnsupportedError } from '../../errors.js';
import { Message } from '../../message/message.js';
import { PROVIDERS, messageInputSchema } from '../../message/schema.js';
import { appendToState } from '../../state/append-to-state.js';
import { decodeState } from '../../state/decode-state.js';
import { encodeState } from '../../state/encode-state.js';
import type { StateKey, StateKeyRing, StateSecret } from '../../state/types.js';
import type { ServerEnv } from '../env.js';
import { messageSchema } from '../schemas.js';
import { errors, json, jsonBody, sent } from './common.js';

const provider = z.enum(PROVIDERS);
const blob = z.string().min(1).openapi({ description: 'An opaque state blob' });
const rejection = z.object({ reason: z.string(), message: z.string() }).openapi('StateRejection');

const encodeBody = z
  .strictObject({
    provider,
    messages: z.array(messageInputSchema),
    processedLength: z.number().int().nonnegative().optional(),
    encrypt: z.boolean().optional(),
  })
  .openapi('EncodeState');

const decodeBody = z.strictObject({ provider, state: blob }).openapi('DecodeState');

const appendBody = z
  .strictObject({
    provider,
    state: blob.optional(),
    messages: z.array(messageInputSchema).min(1),
    encrypt: z.boolean().optional(),
  })
  .openapi('AppendState');

const decodedSchema = z.object({
  messages: z.array(messageSchema.partial({ seq: true })),
  processedLength: z.number().int(),
  rejected: rejection.optional(),
});

const appendedSchema = z.object({ state: blob, dropped: z.number().int(), rejected: rejection.optional() });

const encode = createRoute({
  method: 'post',
  path: '/state/encode',
  tags: ['state'],
  summary: 'A state blob of a history, locked to a provider',
  request: { body: jsonBody(encodeBody) },
  responses: { 200: json(z.object({ state: blob }), 'The blob'), ...errors(400, 401, 413, 501) },
});

const decode = createRoute({
  method: 'post',
  path: '/state/decode',
  tags: ['state'],
  summary: 'The history of a state blob (a blob that cannot be used is rejected: the history is empty)',
  request: { body: jsonBody(decodeBody) },
  responses: {
    200: json(decodedSchema, 'The history'),
    ...errors(400, 401, 413, 501),
  },
});

const append = createRoute({
  method: 'post',
  path: '/state/append',
  tags: ['state'],
  summary: 'A new blob with messages appended (a rejected input blob starts an empty history)',
  request: { body: jsonBody(appendBody) },
  responses: {
    200: json(appendedSchema, 'The new blob'),
    ...errors(400, 401, 413, 501),
  },
});

/** The secret of `secret` for one tenant: an HKDF subkey, so tenants never share a signing key. */
function tenantSecret(secret: StateSecret, tenant: string): Uint8Array {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  return new Uint8Array(hkdfSync('sha256', bytes, Buffer.alloc(0), `chatstate state blobs\ntenant ${tenant}`, 32));
}

/** `key` for `tenant` (the key itself on a server without tenants). */
function keyFor(key: StateKey, tenant: string | undefined): StateKey {
  if (tenant === undefined) return key;
  if (typeof key === 'string' || key instanceof Uint8Array) return tenantSecret(key, tenant);
  const ring = key as StateKeyRing;
  return {
    current: ring.current,
    keys: Object.fromEntries(Object.entries(ring.keys).map(([id, secret]) => [id, tenantSecret(secret, tenant)])),
  };
}

/** Registers the state routes; without `stateKey` they answer 501 (blobs must be signed). */
export function stateRoutes(app: OpenAPIHono<ServerEnv>, stateKey: StateKey | undefined): void {
  const need = (tenant: string | undefined): StateKey => {
    if (stateKey === undefined)
      throw new UnsupportedError('This server has no state key (CHATSTATE_STATE_KEY): it makes no state blobs', {
        store: 'server',
        capability: 'state',
      });
    return keyFor(stateKey, tenant);
  };
  app.openapi(encode, async (c) => {
    const body = c.req.valid('json');
    const key = need(c.var.principal?.tenant);
    const state = encodeState(
      body.messages.map((message) => Message.create(message)),
      {
        provider: body.provider,
        key,
        ...(body.processedLength === undefined ? {} : { processedLength: body.processedLength }),
        ...(body.encrypt === undefined ? {} : { encrypt: body.encrypt }),
      },
    );
    return c.json({ state }, 200);
  });
  app.openapi(decode, async (c) => {
    const body = c.req.valid('json');
    const decoded = decodeState(body.state, { provider: body.provider, key: need(c.var.principal?.tenant) });
    return c.json(sent(decodedSchema, decoded), 200);
  });
  app.openapi(append, async (c) => {
    const body = c.req.valid('json');
    const appended = appendToState(
      body.state,
      body.messages.map((message) => Message.create(message)),
      {
        provider: body.provider,
        key: need(c.var.principal?.tenant),
        ...(body.encrypt === undefined ? {} : { encrypt: body.encrypt }),
      },
    );
    return c.json(sent(appendedSchema, appended), 200);
  });
}
