/**
 * Every number a caller can send the API, at its extremes: for each documented operation, each
 * integer or number in its query parameters and its JSON body (found in the OpenAPI document, so a
 * route added later is covered without editing this file) is replaced in the operation's success
 * sample by values past any sane bound. No answer may be a 5xx; an answer that refuses the request
 * must leave the store as it was (every session's stored JSON, the list, the values); and after all
 * of it the tenant still lists, every session still reads, and the server is ready.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { fileStore } from '../../src/stores/file/index.js';
import { SAMPLES, startServers, type Servers } from './openapi-conformance.js';
import { expectEverySessionReadable } from './server-harness.js';
import { asDocument, documentedRoutes, type OpenApiDocument } from './openapi-doc.js';

/** Values past every bound a number may have, and the edges of JSON numbers. */
const EXTREMES: readonly number[] = [
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  1e308,
  -1,
  0,
  0.5,
  2 ** 31,
  2 ** 63,
];

/** Where a number goes: a query parameter, or a path into the JSON body (`[]`: each element of an array). */
type NumberField = { readonly in: 'query'; readonly name: string } | { readonly in: 'body'; readonly path: string[] };

type Schema = Readonly<Record<string, unknown>>;

let directory = '';
let servers: Servers;
let doc: OpenApiDocument;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'chatstate-extremes-'));
  let count = 0;
  // Each server of the conformance set gets a store of its own (the first is the one the samples go to).
  servers = await startServers(async () => fileStore(join(directory, `store-${(count += 1)}`)));
  doc = asDocument((await servers.server.call('GET', '/openapi.json')).json);
}, 120_000);

afterAll(async () => {
  await servers.close();
  await rm(directory, { recursive: true, force: true });
});

/** `schema` with its `$ref` followed into the document's components. */
function resolve(schema: unknown): Schema | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const ref = (schema as Schema).$ref;
  if (typeof ref !== 'string') return schema as Schema;
  const name = ref.replace('#/components/schemas/', '');
  return resolve(doc.components?.schemas?.[name]);
}

function isNumeric(schema: Schema): boolean {
  const type = schema.type;
  return (
    type === 'integer' ||
    type === 'number' ||
    (Array.isArray(type) && type.some((t) => t === 'integer' || t === 'number'))
  );
}

/** The paths to every number in a JSON schema (through objects, arrays, unions), at most a few levels deep. */
function numberPaths(schema: unknown, path: string[] = [], depth = 0): string[][] {
  const resolved = resolve(schema);
  if (resolved === undefined || depth > 5) return [];
  if (isNumeric(resolved)) return [path];
  const out: string[][] = [];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = resolved[key];
    if (Array.isArray(options)) for (const option of options) out.push(...numberPaths(option, path, depth + 1));
  }
  if (resolved.items !== undefined) out.push(...numberPaths(resolved.items, [...path, '[]'], depth + 1));
  const properties = resolved.properties;
  if (typeof properties === 'object' && properties !== null)
    for (const [name, property] of Object.entries(properties))
      out.push(...numberPaths(property, [...path, name], depth + 1));
  return out;
}

/** The numbers an operation takes. */
function numberFields(operation: Schema): NumberField[] {
  const fields: NumberField[] = [];
  const parameters = (operation.parameters ?? []) as ReadonlyArray<{ name: string; in: string; schema?: unknown }>;
  for (const parameter of parameters) {
    const schema = resolve(parameter.schema);
    if (parameter.in === 'query' && schema !== undefined && isNumeric(schema))
      fields.push({ in: 'query', name: parameter.name });
  }
  const body = (operation.requestBody as Schema | undefined)?.content as Schema | undefined;
  const json = (body?.['application/json'] as Schema | undefined)?.schema;
  const seen = new Set<string>();
  for (const path of numberPaths(json)) {
    const key = path.join('.');
    if (seen.has(key)) continue;
    seen.add(key);
    fields.push({ in: 'body', path });
  }
  return fields;
}

/** A copy of `body` with `value` at `path`; `undefined` when the body has no place for it (an absent array). */
function withNumber(body: unknown, path: readonly string[], value: number): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string, ...string[]];
  if (head === '[]') {
    if (!Array.isArray(body) || body.length === 0) return undefined;
    const items = body.map((item: unknown) => withNumber(item, rest, value));
    return items.some((item) => item === undefined) ? undefined : items;
  }
  const object = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Schema) : {};
  const inner = withNumber(object[head], rest, value);
  return inner === undefined ? undefined : { ...object, [head]: inner };
}

/** What the tenant's store holds, as the store writes it: every session's JSON, the list, the app values. */
async function storeState(store: SessionStore): Promise<string> {
  const summaries = await store.list({ limit: 1000 });
  const sessions = await Promise.all(summaries.map(async (summary) => [summary.id, await store.getJson(summary.id)]));
  const values = await store.values.getAll({ scope: 'app' });
  return JSON.stringify({ summaries, sessions, values });
}

describe('numbers at their extremes, on every documented operation', () => {
  it('never answer 5xx; a refused request leaves the store as it was; everything reads afterwards', async () => {
    const { server, store } = servers;
    const problems: string[] = [];
    let sent = 0;
    for (const route of documentedRoutes(doc)) {
      const base = SAMPLES[route.key]?.[0];
      // Turns call a model, and the samples for other servers need their own: the store's numbers are the point here.
      if (base === undefined || base.server !== undefined || route.path.endsWith('/turns')) continue;
      for (const field of numberFields(route.operation as unknown as Schema)) {
        for (const value of EXTREMES) {
          let path = base.path;
          let body: unknown = base.bodyOf === undefined ? base.body : base.bodyOf(server);
          // A request that creates something creates a new one each time: a conflict must not hide the number.
          if (typeof body === 'object' && body !== null && typeof (body as Schema).id === 'string')
            body = { ...body, id: `${String((body as Schema).id)}-n${sent}` };
          if (field.in === 'query') {
            const url = new URL(base.path, 'http://x');
            url.searchParams.set(field.name, String(value));
            path = `${url.pathname}${url.search}`;
          } else {
            body = withNumber(body ?? {}, field.path, value);
            if (body === undefined) continue;
          }
          const before = await storeState(store);
          const answer = await server.call(route.method.toUpperCase(), path, {
            ...(base.key === null ? {} : { key: server.keys[base.key ?? 'adminA'] }),
            ...(body === undefined ? {} : { body }),
            ...(base.headers === undefined ? {} : { headers: base.headers }),
          });
          sent += 1;
          const what = `${route.key} ${field.in === 'query' ? field.name : field.path.join('.')}=${value}`;
          if (answer.status >= 500) problems.push(`${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
          else if (answer.status >= 400 && (await storeState(store)) !== before)
            problems.push(`${what}: answered ${answer.status} but changed the store`);
        }
      }
    }
    expect(problems).toEqual([]);
    // The document has numbers to send: a change that lost them would make this test prove nothing.
    expect(sent).toBeGreaterThan(50);
    await expectEverySessionReadable(server, store);
  }, 300_000);
});
