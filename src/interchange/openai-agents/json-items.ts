/**
 * A JSON array of the JS SDK's `AgentInputItem`s (what its sessions exchange) as one session,
 * named after the file. Items carry no time: the file's modification time dates them, and the
 * session says so. A malformed item is a problem at its line; a file that is not JSON, at the line
 * where parsing stopped.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { InvalidInputError, errorMessage } from '../../errors.js';
import { sessionIdOr } from '../build.js';
import { derivedMessageId } from '../import-ids.js';
import { lineAt, parseJson } from '../json-text.js';
import type { ImportItem } from '../types.js';
import type { SourceItem } from './items.js';
import { sessionItems } from './session.js';

const SYSTEM = 'openai-agents';
/** What a file must be, for the problems of one that is not. */
export const EXPECTED = 'an Agents SDK SQLiteSession database (Python), or a JSON array of AgentInputItems (JS)';

/** The 1-based line where each element of the top-level JSON array in `text` starts. */
export function elementLines(text: string): number[] {
  const lines: number[] = [];
  let depth = 0;
  let line = 1;
  let inString = false;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') {
      line++;
      continue;
    }
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 1 && expectValue && c !== ']' && c !== ' ' && c !== '\t' && c !== '\r') {
      lines.push(line);
      expectValue = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectValue = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expectValue = true;
  }
  return lines;
}

/** The session of the JSON array at `path`, after the problems of its unreadable items. */
export async function* readJsonItems(path: string): AsyncGenerator<ImportItem> {
  let text: string;
  let modified: string;
  try {
    text = await readFile(path, 'utf8');
    modified = (await stat(path)).mtime.toISOString();
  } catch (error) {
    throw new InvalidInputError('INVALID_ARGUMENT', `${SYSTEM}: cannot read ${path} (${errorMessage(error)})`, {
      cause: error,
      details: { path },
    });
  }
  const key = basename(path, extname(path));
  const parsed = parseJson(text);
  if (!parsed.ok) {
    yield {
      kind: 'problem',
      code: parsed.problem.code,
      message: `${parsed.problem.message}; expected ${EXPECTED}`,
      source: { path, line: parsed.problem.line, record: key },
    };
    return;
  }
  if (!Array.isArray(parsed.value)) {
    yield {
      kind: 'problem',
      code: 'INVALID_ARGUMENT',
      message: `${path} must be a JSON array of Agents input items; expected ${EXPECTED}`,
      source: { path, line: lineAt(text, text.search(/\S/)), record: key },
    };
    return;
  }
  const lines = elementLines(text);
  const sessionId = sessionIdOr(key, key).id;
  const items: SourceItem[] = (parsed.value as unknown[]).map((value, index) => ({
    value,
    fallbackId: derivedMessageId(sessionId, index),
    timestamp: modified,
    where: `line ${lines[index] ?? 1} (item ${index})`,
  }));
  const lineOf = new Map(items.map((item, index) => [item, lines[index] ?? 1]));
  yield* sessionItems({
    key,
    items,
    createdAt: modified,
    updatedAt: modified,
    imported: {
      from: SYSTEM,
      format: 'js-items',
      file: basename(path),
      messageTimestamps: 'the file modification time (input items carry none)',
    },
    unreadable: [],
    source: { path, record: key },
    placeOf: (item) => ({ path, line: lineOf.get(item) ?? 1, record: key }),
  });
}
