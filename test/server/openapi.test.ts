/**
 * The served OpenAPI document against the server over the memory store: it is a valid OpenAPI 3.1
 * document; it names every route the app serves and no other; its checker refuses what it does not
 * declare; and every answer to the samples of openapi-conformance.ts is declared, with a body its
 * schema accepts. Real HTTP over loopback. openapi-stores.test.ts runs the samples over the other
 * stores.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/stores/memory.js';
import {
  Conformance,
  SAMPLES,
  expectEveryStatusDeclared,
  servedRoutes,
  startServers,
  type Servers,
} from './openapi-conformance.js';
import { asDocument, documentedRoutes, type DocRoute, type OpenApiDocument } from './openapi-doc.js';

let memory: Servers;
let doc: OpenApiDocument;
let routes: DocRoute[];

beforeAll(async () => {
  memory = await startServers(async () => memoryStore());
  const served = await memory.server.call('GET', '/openapi.json');
  expect(served.status).toBe(200);
  doc = asDocument(served.json);
  routes = documentedRoutes(doc);
});
afterAll(async () => {
  await memory.close();
});

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('names every route the app serves, and each has samples here', () => {
    const documented = routes.map((route) => route.key).sort();
    expect(documented).toEqual(servedRoutes(memory.store));
    expect(Object.keys(SAMPLES).sort()).toEqual(documented);
  });

  it('has a checker that refuses what the document does not declare', () => {
    // Answers made up here: the checks below would pass vacuously if a $ref resolved to nothing.
    const conformance = new Conformance(doc);
    const route = routes.find((candidate) => candidate.key === 'GET /sessions/{id}') as DocRoute;
    const answer = (status: number, body: unknown, type = 'application/json') => ({
      status,
      headers: new Headers({ 'content-type': type }),
      text: JSON.stringify(body),
    });
    const error = { code: 'NOT_FOUND', message: 'No session', details: {} };
    expect(conformance.problems(route, answer(404, error))).toEqual([]);
    expect(conformance.problems(route, answer(404, { ...error, code: 'NOPE' }))).toHaveLength(1);
    expect(conformance.problems(route, answer(404, { code: 'NOT_FOUND' }))).toHaveLength(1);
    expect(conformance.problems(route, answer(404, error, 'text/plain'))).toHaveLength(1);
    expect(conformance.problems(route, answer(418, error))).toHaveLength(1);
    expect(conformance.problems(route, answer(200, { id: 'x', messages: [{ id: 'm1', seq: 0 }] }))).toHaveLength(1);
  });

  it('declares every status the server answers, with the body it answers', async () => {
    await expectEveryStatusDeclared(memory, doc);
  });
});
