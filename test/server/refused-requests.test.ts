/**
 * Random bad requests to every documented operation that takes a JSON body (found in the OpenAPI
 * document, so a route added later is covered without editing this file): its success sample with
 * a field replaced by random JSON, removed, or joined by one the schema does not know, a message
 * made invalid, an id made hostile (in the body or the path), a body that is not an object, or
 * JSON cut short. No answer may be a 5xx; an answer that refuses the request (4xx) must leave the
 * store as it was — what the API reads (every session's stored JSON, the list, the app values)
 * and every byte of the file store's directory; and after all of it the tenant still lists, every
 * session still reads, and the server is ready. (test/server/number-extremes.test.ts sends the
 * numbers; the library's side is the refused-writes conformance spec.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/message/schema.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { fileStore } from '../../src/stores/file/index.js';
import { fileDigests } from '../../src/testing/file-digests.js';
import { SAMPLES, startServers, type Servers } from './openapi-conformance.js';
import { expectEverySessionReadable } from './server-harness.js';
import { asDocument, documentedRoutes, type DocRoute, type OpenApiDocument } from './openapi-doc.js';

/** Random requests sent (each one request, checked on its own; the store's state carries over). */
const REQUESTS = 250;

/** No fold of a journal into a snapshot: it runs after an answer, and would change bytes while a later request is checked. */
const NO_FOLDS = 1 << 30;

let directory = '';
let servers: Servers;
let doc: OpenApiDocument;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'chatstate-refused-requests-'));
  let count = 0;
  // The first store is the one the samples go to; the others belong to the closed and the stateless server.
  servers = await startServers(async () =>
    fileStore(join(directory, `store-${(count += 1)}`), { foldBytes: NO_FOLDS }),
  );
  doc = asDocument((await servers.server.call('GET', '/openapi.json')).json);
}, 120_000);

afterAll(async () => {
  await servers.close();
  await rm(directory, { recursive: true, force: true });
});

type Json = JsonValue;
type Path = ReadonlyArray<string | number>;

/** A change to a request: what makes it bad (or, by chance, still good). */
type Mutation =
  | { readonly kind: 'replace a field'; readonly at: number; readonly value: Json }
  | { readonly kind: 'remove a field'; readonly at: number }
  | { readonly kind: 'add a field'; readonly at: number; readonly key: string; readonly value: Json }
  | { readonly kind: 'an invalid message'; readonly at: number; readonly message: Json }
  | { readonly kind: 'a hostile id'; readonly at: number; readonly id: Json }
  | { readonly kind: 'a hostile path id'; readonly id: string }
  | { readonly kind: 'not an object'; readonly body: Json }
  | { readonly kind: 'JSON cut short'; readonly at: number; readonly tail: string };

/** Every place in `value` (itself first), with the value there. */
function places(value: Json, path: Path = []): Array<{ path: Path; value: Json }> {
  const found = [{ path, value }];
  if (Array.isArray(value)) value.forEach((item, index) => found.push(...places(item, [...path, index])));
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) found.push(...places(item, [...path, key]));
  return found;
}

/** `value` with `change` applied to what is at `path` (`undefined` removes it). */
function changed(value: Json, path: Path, change: (old: Json) => Json | undefined): Json {
  if (path.length === 0) return change(value) ?? null;
  const [head, ...rest] = path as [string | number, ...Array<string | number>];
  if (Array.isArray(value)) {
    const items = [...value];
    const inner =
      rest.length === 0 ? change(items[head as number] as Json) : changed(items[head as number] as Json, rest, change);
    if (inner === undefined) items.splice(head as number, 1);
    else items[head as number] = inner;
    return items;
  }
  const object: Record<string, Json> = { ...(value as Record<string, Json>) };
  const inner = rest.length === 0 ? change(object[head] as Json) : changed(object[head] as Json, rest, change);
  if (inner === undefined) delete object[head];
  else Object.defineProperty(object, head, { value: inner, enumerable: true, writable: true, configurable: true });
  return object;
}

/** The `n`th of `items` (modulo their number), or `undefined` when there is none. */
function nth<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

/** `path` of `route` (the sample's) with its `n`th path parameter replaced by `id`. */
function withPathId(route: DocRoute, path: string, id: string, n = 0): string {
  const template = route.path.split('/');
  const [pathname, query] = path.split('?') as [string, string | undefined];
  const segments = pathname.split('/');
  const params = template.flatMap((segment, index) => (segment.startsWith('{') ? [index] : []));
  const at = nth(params, n);
  if (at === undefined) return path;
  segments[at] = id;
  return `${segments.join('/')}${query === undefined ? '' : `?${query}`}`;
}

/** The request `mutation` makes of a sample's `path` and `body`. */
function mutate(route: DocRoute, path: string, body: Json, mutation: Mutation): { path: string; body: unknown } {
  const all = places(body);
  switch (mutation.kind) {
    case 'replace a field': {
      const place = nth(all.slice(1), mutation.at);
      return { path, body: place === undefined ? body : changed(body, place.path, () => mutation.value) };
    }
    case 'remove a field': {
      const place = nth(all.slice(1), mutation.at);
      return { path, body: place === undefined ? body : changed(body, place.path, () => undefined) };
    }
    case 'add a field': {
      const objects = all.filter(
        (place) => typeof place.value === 'object' && place.value !== null && !Array.isArray(place.value),
      );
      const place = nth(objects, mutation.at);
      return {
        path,
        body: place === undefined ? body : changed(body, [...place.path, mutation.key], () => mutation.value),
      };
    }
    case 'an invalid message': {
      const messages = all.filter(
        (place) =>
          typeof place.path.at(-2) === 'string' &&
          /messages|input/.test(String(place.path.at(-2))) &&
          typeof place.path.at(-1) === 'number',
      );
      const place = nth(messages, mutation.at);
      return { path, body: place === undefined ? body : changed(body, place.path, () => mutation.message) };
    }
    case 'a hostile id': {
      const ids = all.filter((place) => typeof place.value === 'string' && /id$/i.test(String(place.path.at(-1))));
      const place = nth(ids, mutation.at);
      return { path, body: place === undefined ? body : changed(body, place.path, () => mutation.id) };
    }
    case 'a hostile path id':
      return { path: withPathId(route, path, mutation.id), body };
    case 'not an object':
      return { path, body: mutation.body };
    case 'JSON cut short': {
      const text = JSON.stringify(body);
      return { path, body: `${text.slice(0, mutation.at % Math.max(1, text.length))}${mutation.tail}` };
    }
    default: {
      const never: never = mutation;
      throw new Error(`unknown mutation ${JSON.stringify(never)}`);
    }
  }
}

/** Values of the wrong kind for most fields, and random JSON. */
const junk: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, '', ' ', -1, 0, 1.5, 1e308, true, [], {}, 'x'.repeat(300), '\u0000', '../etc'),
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
);

/** Messages that are no message (by the schema), and random objects that look like one. */
const badMessage: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    'hello',
    [],
    { role: 'robot', content: 'hi' },
    { role: 'user', content: '' },
    { role: 'user', content: [] },
    { role: 'user', content: [{ type: 'image' }] },
    { role: 'tool', content: 'result' },
    { role: 'user', content: 'hi', toolCallId: 'call_1' },
    { role: 'user', content: 'hi', toolCalls: [{ id: 'call_1', name: 'f' }] },
    {
      role: 'assistant',
      content: 'hi',
      toolCalls: [
        { id: 'call_1', name: 'f' },
        { id: 'call_1', name: 'f' },
      ],
    },
    { role: 'user', content: 'hi', id: 'has space' },
    { role: 'user', content: 'hi', seq: -1 },
    { role: 'user', content: 'hi', timestamp: 'yesterday' },
    { role: 'user', content: 'hi', unknown: 1 },
  ),
  fc.record(
    {
      role: fc.oneof(fc.constantFrom<Json>('user', 'assistant', 'tool', 'system'), junk),
      content: fc.oneof(fc.string(), junk),
      id: junk,
      toolCallId: junk,
      metadata: junk,
    },
    { requiredKeys: ['role'] },
  ) as fc.Arbitrary<Json>,
);

/** Ids no route takes, as they go into a body. */
const hostileId: fc.Arbitrary<Json> = fc.constantFrom<Json>(
  '',
  '..',
  '../etc',
  'a/b',
  ' lead',
  'a\u0000b',
  'x'.repeat(300),
  '\ud800',
  42,
  null,
);

/** Ids no route takes, as they go into a path (encoded). */
const hostilePathId = fc.constantFrom(
  '..%2Fetc',
  '%2e%2e',
  'a%00b',
  'a%20b',
  '-dash',
  'x'.repeat(300),
  '%ED%A0%80',
  '%FF',
);

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace a field' as const), at: fc.nat(), value: junk }),
  fc.record({ kind: fc.constant('remove a field' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('add a field' as const),
    at: fc.nat(),
    key: fc.oneof(fc.constantFrom('unknown', '__proto__', 'constructor', ''), fc.string({ maxLength: 8 })),
    value: junk,
  }),
  fc.record({ kind: fc.constant('an invalid message' as const), at: fc.nat(), message: badMessage }),
  fc.record({ kind: fc.constant('a hostile id' as const), at: fc.nat(), id: hostileId }),
  fc.record({ kind: fc.constant('a hostile path id' as const), id: hostilePathId }),
  fc.record({
    kind: fc.constant('not an object' as const),
    body: fc.oneof(fc.constantFrom<Json>(null, [], 'text', 0, true), fc.array(junk, { maxLength: 2 })),
  }),
  fc.record({
    kind: fc.constant('JSON cut short' as const),
    at: fc.nat(),
    tail: fc.constantFrom('', '}', ']', ',', '"', '{"a":', 'garbage'),
  }),
);

/** What the tenant's store holds, as the store writes it: every session's JSON, the list, the app values. */
async function storeState(store: SessionStore): Promise<unknown> {
  const summaries = await store.list({ limit: 1000 });
  const sessions = await Promise.all(summaries.map(async (summary) => [summary.id, await store.getJson(summary.id)]));
  const values = await store.values.getAll({ scope: 'app' });
  return { summaries, sessions, values };
}

/** Operations that take a JSON body, with their success sample. Turns call a model, and answer 5xx for its failures by design. */
function writeRoutes(): DocRoute[] {
  return documentedRoutes(doc).filter((route) => {
    const body = (route.operation as { requestBody?: { content?: Record<string, unknown> } }).requestBody;
    const sample = SAMPLES[route.key]?.[0];
    return (
      body?.content?.['application/json'] !== undefined &&
      sample !== undefined &&
      sample.server === undefined &&
      !route.path.endsWith('/turns')
    );
  });
}

describe('random bad requests to every documented operation with a JSON body', () => {
  it('never answer 5xx; a refused request leaves what the store reads and its files as they were; everything reads afterwards', async () => {
    const { server, store } = servers;
    const storeDirectory = join(directory, 'store-1');
    const routes = writeRoutes();
    // The document has such operations: a change that lost them would make this test prove nothing.
    expect(routes.length).toBeGreaterThan(10);
    const statuses = new Map<number, number>();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: routes.length - 1 }), mutationArb, async (index, mutation) => {
        const route = routes[index] as DocRoute;
        const sample = SAMPLES[route.key]?.[0];
        if (sample === undefined) throw new Error(`no sample for ${route.key}`);
        let body = (sample.bodyOf === undefined ? sample.body : sample.bodyOf(server)) as Json;
        // A request that creates something creates a new one each time: a conflict must not hide the mutation.
        const made = body as Readonly<Record<string, Json>> | undefined;
        if (typeof made?.id === 'string') body = { ...made, id: `${made.id}-r${sent}` };
        const request = mutate(route, sample.pathOf?.() ?? sample.path, body ?? {}, mutation);
        const before = await storeState(store);
        const bytesBefore = fileDigests(storeDirectory);
        const answer = await server.call(route.method.toUpperCase(), request.path, {
          ...(sample.key === null ? {} : { key: server.keys[sample.key ?? 'adminA'] }),
          body: request.body,
          ...(sample.headers === undefined ? {} : { headers: sample.headers }),
        });
        sent += 1;
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const what = `${route.key} with ${mutation.kind}: ${request.path} ${JSON.stringify(request.body)?.slice(0, 300)}`;
        expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
        if (answer.status >= 400) {
          expect(fileDigests(storeDirectory), `${what}: answered ${answer.status} but changed a file`).toEqual(
            bytesBefore,
          );
          expect(await storeState(store), `${what}: answered ${answer.status} but changed the store`).toEqual(before);
        }
      }),
      { numRuns: REQUESTS },
    );
    // Most of what is sent is refused: a generator that sent only good requests would prove nothing.
    const refused = [...statuses].filter(([status]) => status >= 400).reduce((sum, [, count]) => sum + count, 0);
    expect(refused, JSON.stringify([...statuses])).toBeGreaterThan(REQUESTS / 2);
    await expectEverySessionReadable(server, store);
  }, 300_000);
});
