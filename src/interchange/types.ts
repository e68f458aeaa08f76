/**
 * The contract of chatstate's importers and exporters: other systems' stored conversations in,
 * chatstate sessions out (and back, for the systems a user may want to leave to). Each system is
 * one module of this folder plus its line in `index.ts`.
 *
 * An importer streams: it yields each session as soon as it is read, so a directory of 100k
 * sessions imports in bounded memory, and a bad file or record becomes a problem beside the good
 * sessions instead of failing the whole import.
 * @module
 */
import type { KnowledgeGraphData } from '../active-memory/graph/types.js';
import type { ErrorCode } from '../errors.js';
import type { JsonObject } from '../message/schema.js';
import type { Session } from '../session/session.js';

/** Where in the source something was read: a file (and line, for line-based or JSON sources), or a database row. */
export interface SourcePlace {
  /** The file, directory or database the item came from, as given (relative paths stay relative). */
  readonly path: string;
  /** 1-based line of the item (or of the error) in `path`, when the source has lines. */
  readonly line?: number;
  /** The source's own id of the record (a thread id, a session key, a row id), when it has one. */
  readonly record?: string;
}

/** A change an importer made so that the session is valid (an orphaned tool message, an unknown role, …); no text is dropped by one. */
export interface ImportRepair {
  /** A short stable name: `orphan_tool_result`, `missing_tool_result`, `unknown_role`, `unknown_category`, … */
  readonly kind: string;
  /** What was done, in a sentence, naming the message. */
  readonly message: string;
  /** The id of the message repaired, when it has one. */
  readonly messageId?: string;
}

/** One thing an importer read: a session (with what it repaired), or a part of the source it could not read. */
export type ImportItem =
  | {
      readonly kind: 'session';
      readonly session: Session;
      /** Active-memory values that travel with the session (Coreason's variables go on the session itself). */
      readonly values?: JsonObject;
      readonly repairs: readonly ImportRepair[];
      readonly source: SourcePlace;
    }
  | {
      readonly kind: 'problem';
      /** The typed error the source's part was refused with (`INVALID_ARGUMENT`, `CORRUPT`, …). */
      readonly code: ErrorCode;
      readonly message: string;
      readonly source: SourcePlace;
    };

/** A part of the source an importer could not read. */
export type ImportProblem = Extract<ImportItem, { readonly kind: 'problem' }>;

/** What a graph importer read: the graph, and a problem per part it could not read. */
export interface GraphRead {
  readonly graph: KnowledgeGraphData;
  readonly problems: readonly ImportProblem[];
  /** Lines (or records) read, good and bad. */
  readonly lines: number;
}

/**
 * Reads another system's knowledge graph (entities, relations, observations): what a user's
 * `KnowledgeGraph` takes in one merge. A graph is one unit, read whole before anything is written.
 */
export interface GraphImporter {
  /** The name `import --from` takes: `mcp-memory`. */
  readonly system: string;
  /** What `path` must be. */
  readonly describe: string;
  /** Reads `path` whole; `NOT_FOUND` when it does not exist, `INVALID_ARGUMENT` when it is not a file. */
  read(path: string, options?: { readonly signal?: AbortSignal }): Promise<GraphRead>;
}

/** Options every importer takes. */
export interface ImportOptions {
  /** The time zone naive local timestamps are read in (Penguin writes them). @default the process's zone */
  readonly timeZone?: string;
  /** Ends the import early: the generator stops at the next item. */
  readonly signal?: AbortSignal;
}

/** Reads one system's stored conversations. */
export interface Importer {
  /** The name `import --from` takes: `penguin`, `magent`, `coreason`, `goaitools`, `langgraph`, `openai-agents`. */
  readonly system: string;
  /** One line: what `path` must be (a directory, a file, a database). */
  readonly describe: string;
  /**
   * Yields each session of `path` as it is read, and a problem for each part that could not be (a
   * file refused whole says what the system's file must be). A `path` that does not exist is
   * `NOT_FOUND`, and one of a kind the importer does not read (a directory where it reads a file)
   * is `INVALID_ARGUMENT`: thrown, saying what was expected (`describe`).
   */
  read(path: string, options?: ImportOptions): AsyncIterable<ImportItem>;
}

/** What an exporter wrote. */
export interface ExportSummary {
  readonly sessions: number;
  /** Files written (relative to the target), in order. */
  readonly files: readonly string[];
  /** What the target format cannot hold and was therefore left out or changed, per session. */
  readonly warnings: readonly { readonly sessionId: string; readonly message: string }[];
}

/** Writes sessions in one system's format (`export --to`). */
export interface Exporter {
  readonly system: string;
  readonly describe: string;
  /** Writes `sessions` under `target` (a directory or a file, as the system stores them). */
  write(sessions: AsyncIterable<Session>, target: string): Promise<ExportSummary>;
}
