/**
 * chatstate's importers and exporters, by system name (`import --from`, `export --to`). A system
 * joins with its module and one line in each table here.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { Exporter, GraphImporter, Importer } from './types.js';

export type {
  ExportSummary,
  Exporter,
  GraphImporter,
  GraphRead,
  ImportProblem,
  ImportItem,
  ImportOptions,
  ImportRepair,
  Importer,
  SourcePlace,
} from './types.js';

/** Settings an importer takes (`import --set NAME=VALUE`), by name. */
export type ImporterSettings = Readonly<Record<string, string>>;

/** An importer's entry: the settings it takes (name → what it is) and how to make it. */
interface ImporterEntry {
  readonly settings: Readonly<Record<string, string>>;
  readonly load: (settings: ImporterSettings) => Promise<Importer>;
}

// Each entry loads its module when used: an import from one system loads only that system's code.
const IMPORTERS: Readonly<Record<string, ImporterEntry>> = {
  langgraph: {
    settings: { channel: 'the state channel holding the messages (default messages)' },
    load: async ({ channel }) =>
      (await import('./langgraph/read.js')).langgraphImporter(channel === undefined ? {} : { channel }),
  },
  'openai-agents': {
    settings: {
      sessionsTable: 'the sessions table of SQLiteSession (default agent_sessions)',
      messagesTable: 'the items table of SQLiteSession (default agent_messages)',
    },
    load: async ({ sessionsTable, messagesTable }) =>
      (await import('./openai-agents/read.js')).openaiAgentsImporter({
        ...(sessionsTable === undefined ? {} : { sessionsTable }),
        ...(messagesTable === undefined ? {} : { messagesTable }),
      }),
  },
  penguin: { settings: {}, load: async () => (await import('./penguin/read.js')).penguinImporter },
  goaitools: { settings: {}, load: async () => (await import('./goaitools/read.js')).goaitoolsImporter },
  coreason: { settings: {}, load: async () => (await import('./coreason/read.js')).coreasonImporter },
  magent: { settings: {}, load: async () => (await import('./magent/read.js')).magentImporter },
};
// Importers of knowledge graphs (a user's `KnowledgeGraph`, not sessions).
const GRAPH_IMPORTERS: Readonly<Record<string, () => Promise<GraphImporter>>> = {
  'mcp-memory': async () => (await import('./mcp-memory/read.js')).mcpMemoryImporter,
};
const EXPORTERS: Readonly<Record<string, () => Promise<Exporter>>> = {
  penguin: async () => (await import('./penguin/write.js')).penguinExporter,
  'penguin-legacy': async () => (await import('./penguin/write.js')).penguinLegacyExporter,
  goaitools: async () => (await import('./goaitools/write.js')).goaitoolsExporter,
  'goaitools-base64': async () => (await import('./goaitools/write.js')).goaitoolsBase64Exporter,
};

/** The systems whose sessions `import --from` reads. */
export function importerNames(): string[] {
  return Object.keys(IMPORTERS).sort();
}

/** The systems whose knowledge graphs `import --from` reads. */
export function graphImporterNames(): string[] {
  return Object.keys(GRAPH_IMPORTERS).sort();
}

/** True when `system`'s importer reads a knowledge graph (`graphImporterFor`), not sessions. */
export function isGraphSystem(system: string): boolean {
  return Object.hasOwn(GRAPH_IMPORTERS, system);
}

/** The knowledge graph importer of `system`; `INVALID_ARGUMENT` naming the graph systems otherwise. */
export async function graphImporterFor(system: string): Promise<GraphImporter> {
  const load = Object.hasOwn(GRAPH_IMPORTERS, system) ? GRAPH_IMPORTERS[system] : undefined;
  if (load === undefined)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `No knowledge graph importer for ${JSON.stringify(system)}; known: ${Object.keys(GRAPH_IMPORTERS).join(', ')}`,
    );
  return load();
}

/** The systems `export --to` writes. */
export function exporterNames(): string[] {
  return Object.keys(EXPORTERS).sort();
}

/** The settings `system`'s importer takes, name → what it is (`{}` for an unknown system). */
export function importerSettings(system: string): Readonly<Record<string, string>> {
  return Object.hasOwn(IMPORTERS, system) ? (IMPORTERS[system] as ImporterEntry).settings : {};
}

/**
 * The importer of `system`, made with `settings`; `INVALID_ARGUMENT` listing the known systems,
 * or the settings the importer takes, otherwise.
 */
export async function importerFor(system: string, settings: ImporterSettings = {}): Promise<Importer> {
  const entry = Object.hasOwn(IMPORTERS, system) ? IMPORTERS[system] : undefined;
  if (isGraphSystem(system))
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${system} holds a knowledge graph, not sessions: read it with graphImporterFor`,
    );
  if (entry === undefined) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `No importer for ${JSON.stringify(system)}; known: ${importerNames().join(', ') || '(none)'}`,
    );
  }
  for (const name of Object.keys(settings)) {
    if (!Object.hasOwn(entry.settings, name)) {
      const known = Object.keys(entry.settings);
      throw new InvalidInputError(
        'INVALID_ARGUMENT',
        `The ${system} importer has no setting ${JSON.stringify(name)}; ${known.length === 0 ? 'it takes none' : `it takes ${known.join(', ')}`}`,
      );
    }
  }
  return entry.load(settings);
}

/** The exporter of `system`; `INVALID_ARGUMENT` listing the known ones otherwise. */
export async function exporterFor(system: string): Promise<Exporter> {
  const load = Object.hasOwn(EXPORTERS, system) ? EXPORTERS[system] : undefined;
  if (load === undefined) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `No exporter for ${JSON.stringify(system)}; known: ${exporterNames().join(', ') || '(none)'}`,
    );
  }
  return load();
}
