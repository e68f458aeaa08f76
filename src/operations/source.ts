/**
 * What `import FILE` reads, told apart by its content: export lines (or JSON lines of sessions),
 * one session JSON (pretty-printed or not), or a provider's wire history (`from`), which becomes
 * a new session.
 * @module
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { ChatstateError, InvalidInputError, errorMessage } from '../errors.js';
import { formats } from '../formats/index.js';
import { PROVIDERS, type ProviderName } from '../message/schema.js';
import { Session } from '../session/session.js';
import type { ImportInput } from './import.js';
import { entryOf } from './lines.js';

/** Options of `inputsFromStream`. */
export interface SourceOptions {
  /** Shown in problems (`-` for stdin). @default '-' */
  readonly path?: string;
  /** Read the content as this provider's wire history (a request body or its messages array). */
  readonly from?: ProviderName;
  /** The id of the session a wire history becomes. @default a new id */
  readonly id?: string;
}

/** `INVALID_ARGUMENT` unless `name` is a provider. */
export function providerOf(name: string): ProviderName {
  if (!(PROVIDERS as readonly string[]).includes(name))
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `Unknown provider ${JSON.stringify(name.slice(0, 40))}; known: ${PROVIDERS.join(', ')}`,
    );
  return name as ProviderName;
}

/** The request-fields object `formats[provider].from` reads, from a body or a bare messages array. */
function wireOf(provider: ProviderName, parsed: unknown): object {
  if (!Array.isArray(parsed)) {
    if (typeof parsed !== 'object' || parsed === null)
      throw new InvalidInputError('INVALID_ARGUMENT', `a ${provider} history must be an object or an array`);
    return parsed;
  }
  switch (provider) {
    case 'openaiResponses':
      return { input: parsed };
    case 'gemini':
      return { contents: parsed };
    case 'openaiChat':
    case 'anthropic':
    case 'aiSdk':
      return { messages: parsed };
    default: {
      const never: never = provider;
      return never;
    }
  }
}

/** A provider wire history as an import input: a new session, the conversion's warnings as repairs. */
export function wireInput(provider: ProviderName, parsed: unknown, options: SourceOptions = {}): ImportInput {
  const format = formats[provider] as { from(wire: object): ReturnType<(typeof formats)['openaiChat']['from']> };
  const { messages, warnings } = format.from(wireOf(provider, parsed));
  const session = Session.create({ ...(options.id === undefined ? {} : { id: options.id }), messages });
  return {
    kind: 'bundle',
    bundle: { session, values: {} },
    source: { path: options.path ?? '-' },
    repairs: warnings.map((warning) => ({
      kind: warning.code,
      message: warning.message,
      ...(warning.messageId === undefined ? {} : { messageId: warning.messageId }),
    })),
  };
}

/** The line and column of `position` in `text` (1-based), for a JSON error. */
function place(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  return `line ${line}, column ${position - before.lastIndexOf('\n')}`;
}

function parseWhole(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const at = /position (\d+)/.exec(errorMessage(error));
    const where = at === null ? '' : ` at ${place(text, Number(at[1]))}`;
    throw new InvalidInputError('INVALID_ARGUMENT', `${path} is not JSON${where}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

function problemOf(error: unknown, path: string): ImportInput {
  if (!ChatstateError.isInstance(error)) throw error;
  const line = typeof error.details.line === 'number' ? error.details.line : undefined;
  return {
    kind: 'problem',
    code: error.code,
    message: error.message,
    source: { path, ...(line === undefined ? {} : { line }) },
  };
}

/**
 * The import inputs of a stream. Export lines stream one line at a time (bounded memory); a
 * whole-document source (one session JSON, a wire history) is read whole. A bad line is a problem
 * with its number, the others import.
 */
export async function* inputsFromStream(stream: Readable, options: SourceOptions = {}): AsyncGenerator<ImportInput> {
  const path = options.path ?? '-';
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const buffered: string[] = [];
  let number = 0;
  let mode: 'lines' | 'whole' | undefined = options.from === undefined ? undefined : 'whole';
  try {
    for await (const text of lines) {
      number += 1;
      if (mode === 'whole') {
        buffered.push(text);
        continue;
      }
      if (mode === undefined) {
        if (text.trim().length === 0) {
          buffered.push(text);
          continue;
        }
        // The first line alone is JSON for a lines file; otherwise the document spans lines.
        let first: unknown;
        try {
          first = JSON.parse(text);
        } catch {
          mode = 'whole';
          buffered.push(text);
          continue;
        }
        if (typeof first !== 'object' || first === null || Array.isArray(first)) {
          mode = 'whole';
          buffered.push(text);
          continue;
        }
        mode = 'lines';
        buffered.length = 0;
        try {
          yield asInput(entryOf(first, number), path, number);
        } catch (error) {
          yield problemOf(error, path);
        }
        continue;
      }
      if (text.trim().length === 0) continue;
      try {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          throw new InvalidInputError('INVALID_ARGUMENT', `line ${number}: not JSON (${errorMessage(error)})`, {
            details: { line: number },
          });
        }
        yield asInput(entryOf(parsed, number), path, number);
      } catch (error) {
        yield problemOf(error, path);
      }
    }
  } finally {
    lines.close();
  }
  if (mode === 'lines') return;
  // One document, refused whole: the problem says what the source must be.
  const expected =
    options.from === undefined
      ? 'chatstate export lines, a session JSON or JSON lines of sessions'
      : `a wire history of ${options.from}`;
  const text = buffered.join('\n');
  if (text.trim().length === 0) {
    yield {
      kind: 'problem',
      code: 'INVALID_ARGUMENT',
      message: `${path} is empty; expected ${expected}`,
      source: { path },
    };
    return;
  }
  try {
    const parsed = parseWhole(text, path);
    if (options.from !== undefined) {
      yield wireInput(options.from, parsed, { ...options, path });
      return;
    }
    if (Array.isArray(parsed))
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `${path} is a JSON array: a provider history needs --from ${PROVIDERS.join('|')}`,
      );
    yield asInput(entryOf(parsed, 1), path, undefined);
  } catch (error) {
    const problem = problemOf(error, path);
    yield problem.kind === 'problem' ? { ...problem, message: `${problem.message}; expected ${expected}` } : problem;
  }
}

function asInput(entry: ReturnType<typeof entryOf>, path: string, line: number | undefined): ImportInput {
  const source = { path, ...(line === undefined ? {} : { line }) };
  return entry.kind === 'session'
    ? { kind: 'bundle', bundle: entry.bundle, source }
    : { kind: 'app-values', values: entry.values, source };
}
