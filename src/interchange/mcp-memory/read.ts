/**
 * The reference MCP memory server's file (`memory.jsonl`, the `MEMORY_FILE_PATH` of
 * `@modelcontextprotocol/server-memory`): JSON lines of `{"type":"entity","name","entityType",
 * "observations"}` and `{"type":"relation","from","to","relationType"}`. Read whole into one graph,
 * every bad line a problem naming its line: the graph is one unit, so it is imported only when
 * every line was read (see `chatstate import --from mcp-memory`).
 * @module
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { checkEntities, checkRelations } from '../../active-memory/graph/checks.js';
import type { GraphEntity, GraphRelation } from '../../active-memory/graph/types.js';
import { ChatstateError, errorMessage } from '../../errors.js';
import { sourceKind } from '../source-path.js';
import type { GraphImporter, GraphRead, ImportProblem } from '../types.js';

const SYSTEM = 'mcp-memory';
const EXPECTED = "the reference MCP memory server's memory file (JSON lines of entities and relations)";

/** The line's item, or a problem saying what is wrong with it. */
function readLine(text: string, path: string, line: number): GraphEntity | GraphRelation | ImportProblem {
  const problem = (code: ImportProblem['code'], message: string): ImportProblem => ({
    kind: 'problem',
    code,
    message,
    source: { path, line },
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return problem('INVALID_ARGUMENT', `not JSON: ${errorMessage(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return problem('INVALID_ARGUMENT', 'not a JSON object');
  const item = value as Record<string, unknown>;
  try {
    if (item.type === 'entity') {
      // The reference server keeps an entity without observations as []: a missing list is a damaged line.
      if (item.observations === undefined) return problem('INVALID_ARGUMENT', 'entity: observations is missing');
      return checkEntities([item], 'entity', Infinity)[0] as GraphEntity;
    }
    if (item.type === 'relation') return checkRelations([item], 'relation', Infinity)[0] as GraphRelation;
  } catch (error) {
    // The checks name the field as an item of a list (`relation[0].to`): the line is the item.
    const message = errorMessage(error).replace(/^(entity|relation)\[0\]/, '$1');
    return problem(ChatstateError.isInstance(error) ? error.code : 'INVALID_ARGUMENT', message);
  }
  return problem('INVALID_ARGUMENT', `type must be "entity" or "relation", got ${JSON.stringify(item.type) ?? 'none'}`);
}

/** Reads `path` whole: its entities and relations in file order, and a problem per bad line. */
async function read(path: string, options: { readonly signal?: AbortSignal } = {}): Promise<GraphRead> {
  await sourceKind(path, { system: SYSTEM, expected: EXPECTED, kinds: ['file'] });
  const entities: GraphEntity[] = [];
  const relations: GraphRelation[] = [];
  const problems: ImportProblem[] = [];
  let line = 0;
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const text of lines) {
    line += 1;
    options.signal?.throwIfAborted();
    // The reference server writes no blank lines, but skips them when it reads.
    if (text.trim() === '') continue;
    const item = readLine(text, path, line);
    if ('kind' in item) problems.push(item);
    else if ('entityType' in item) entities.push(item);
    else relations.push(item);
  }
  return { graph: { entities, relations }, problems, lines: line };
}

/** The `mcp-memory` importer. */
export const mcpMemoryImporter: GraphImporter = Object.freeze({
  system: SYSTEM,
  describe: EXPECTED,
  read,
});
