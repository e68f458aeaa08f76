/**
 * The layers of src/ (DESIGN.md, "Layers"), lowest first: a module imports only from its own layer
 * or lower ones, so data flows one way. `npm run lint` runs it (`depcruise src`). Tests and
 * test-only files are left out: a test may reach for anything.
 */
const LAYERS = [
  ['errors.ts', 'bounds.ts', 'freeze.ts', 'ids.ts', 'json-position.ts', 'internal'],
  ['message'],
  ['tokens'],
  ['compaction', 'formats'],
  // A session prunes with compaction policies and counts with tokens: it sits above both.
  ['session', 'state'],
  ['models'],
  ['store'],
  ['stores'],
  ['testing'],
  ['manager'],
  ['runtime', 'active-memory'],
  ['tenancy'],
  ['interchange', 'operations'],
  ['adapters'],
  // The MCP server: active memory over the MCP SDK, mounted by the CLI (stdio) and the server (/mcp).
  ['mcp'],
  ['cli', 'server', 'web'],
  ['index.ts'],
];

/** A path pattern for the src/ entries of `names` (folders and top-level files). */
const under = (names) => `^src/(${names.map((name) => name.replace(/\./g, '\\.')).join('|')})(/|$)`;

const layerRules = LAYERS.slice(0, -1).map((names, level) => ({
  name: `layer-${names.join('+')}`,
  comment: `${names.join(', ')} import only from their own layer or lower ones (DESIGN.md, "Layers")`,
  severity: 'error',
  from: { path: under(names), pathNot: '\\.test\\.ts$' },
  to: { path: under(LAYERS.slice(level + 1).flat()) },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular-folders',
      comment: 'no import cycle that leaves a folder of src/ (cycles inside one folder are its own business)',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { circular: true, viaSomeNot: '^src/$1/' },
    },
    {
      name: 'web-imports-api-types-only',
      comment:
        "the browser client talks to the server over HTTP: of the rest of src/ it imports only the API's types (src/server/api-types.ts)",
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/', pathNot: '^src/(web/|server/api-types\\.ts$)' },
    },
    {
      name: 'web-api-types-as-types',
      comment: "the API's types are imported as types only (`import type`): no server code reaches the browser bundle",
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/server/api-types\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-not-node',
      comment:
        "the browser client runs in a browser: no Node module (its tsconfig has Node's types only for the API's types)",
      severity: 'error',
      from: { path: '^src/web/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'src-not-from-tests',
      comment: 'shipped code never imports test code',
      severity: 'error',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { path: '^(test|bench|examples)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$|\\.test-d\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
