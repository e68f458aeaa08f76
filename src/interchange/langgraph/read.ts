/**
 * The LangGraph importer (`import --from langgraph`): each thread of a LangGraph.js `SqliteSaver`
 * database (`@langchain/langgraph-checkpoint-sqlite`) as one session, from the thread's newest
 * root checkpoint. The database is opened read-only through SQLite, so what its `-wal` file holds
 * is read too. Subgraph namespaces are partial views and are not read; the writes pending on the
 * newest checkpoint (a step that finished after it, or an interrupt) are added and flagged. A
 * thread that cannot be read is a problem beside the others.
 * @module
 */
import { InvalidInputError } from '../../errors.js';
import { sourceKind } from '../source-path.js';
import { openSourceDatabase, sourceError, tableNames } from '../sqlite-source.js';
import type { ImportItem, ImportOptions, Importer } from '../types.js';
import { problemOf, readThread } from './thread.js';

const SYSTEM = 'langgraph';
/** What the importer reads, for its messages. */
const EXPECTED = 'a LangGraph.js SqliteSaver database file (each thread becomes a session)';

/** Options of `langgraphImporter`. */
export interface LanggraphImporterOptions {
  /** The state channel holding the conversation (`MessagesAnnotation` names it `messages`). @default 'messages' */
  readonly channel?: string;
}

/** The LangGraph importer; `channel` names the state key holding the messages. */
export function langgraphImporter(options: LanggraphImporterOptions = {}): Importer {
  const channel = options.channel ?? 'messages';
  if (typeof channel !== 'string' || channel.length === 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `${SYSTEM}: channel must be a non-empty string`);
  return {
    system: SYSTEM,
    describe: EXPECTED,
    async *read(path: string, readOptions: ImportOptions = {}): AsyncGenerator<ImportItem> {
      await sourceKind(path, { system: SYSTEM, expected: EXPECTED, kinds: ['file'] });
      const db = await openSourceDatabase(path, SYSTEM, EXPECTED);
      try {
        let threads: string[];
        try {
          if (!tableNames(db).has('checkpoints'))
            throw new InvalidInputError(
              'INVALID_ARGUMENT',
              `${SYSTEM}: ${path} is not a LangGraph SqliteSaver database (it has no checkpoints table); expected ${EXPECTED}`,
              { details: { path } },
            );
          threads = (
            db.prepare('SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id').all() as {
              thread_id: unknown;
            }[]
          ).map((row) => String(row.thread_id));
        } catch (error) {
          throw sourceError(error, SYSTEM, path);
        }
        for (const threadId of threads) {
          if (readOptions.signal?.aborted === true) return;
          let read: ReturnType<typeof readThread>;
          try {
            read = readThread(db, path, threadId, channel);
          } catch (error) {
            yield problemOf(error, path, threadId);
            continue;
          }
          yield* read.problems;
          yield read.session;
        }
      } finally {
        db.close();
      }
    },
  };
}
