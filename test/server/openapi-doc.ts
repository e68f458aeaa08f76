/**
 * The served OpenAPI document as the server tests read it: its operations, enumerated from its
 * paths × methods, so that a route added to the app is covered by them without editing a list.
 */

/** A response the document declares: its media types and the schema of each. */
export interface DocResponse {
  readonly description: string;
  readonly content?: Readonly<Record<string, { readonly schema?: unknown }>>;
}

/** One operation of the document. */
export interface DocOperation {
  readonly responses: Readonly<Record<string, DocResponse>>;
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string }>;
}

/** The parts of an OpenAPI 3.1 document the tests read. */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, unknown>> };
}

/** One route of the document: `GET /sessions/{id}` and its operation. */
export interface DocRoute {
  /** `METHOD /path`, the path in OpenAPI's `{param}` form. */
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly operation: DocOperation;
}

/** The methods a path item may hold operations for (its other fields are not operations). */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `METHOD /path` of a route. */
export function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** `value` as an OpenAPI document, after checking the little the tests rely on. */
export function asDocument(value: unknown): OpenApiDocument {
  const doc = value as Partial<OpenApiDocument> | undefined;
  if (typeof doc?.openapi !== 'string' || typeof doc.paths !== 'object' || doc.paths === null)
    throw new Error(`not an OpenAPI document: ${JSON.stringify(value)?.slice(0, 200)}`);
  return doc as OpenApiDocument;
}

/** Every operation of `doc`, in document order. */
export function documentedRoutes(doc: OpenApiDocument): DocRoute[] {
  const routes: DocRoute[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as DocOperation | undefined;
      if (operation !== undefined) routes.push({ key: routeKey(method, path), method, path, operation });
    }
  }
  return routes;
}
