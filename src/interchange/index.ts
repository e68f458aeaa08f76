/**
 * chatstate's importers and exporters, by system name (`import --from`, `export --to`). A system
 * joins with its module and one line in each table here.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import type { Exporter, Importer } from './types.js';

export type {
  ExportSummary,
  Exporter,
  ImportItem,
  ImportOptions,
  ImportRepair,
  Importer,
  SourcePlace,
} from './types.js';

// Each entry loads its module when used: an import from one system loads only that system's code.
const IMPORTERS: Readonly<Record<string, () => Promise<Importer>>> = {
  langgraph: async () => (await import('./langgraph/read.js')).langgraphImporter(),
  'openai-agents': async () => (await import('./openai-agents/read.js')).openaiAgentsImporter(),
  penguin: async () => (await import('./penguin/read.js')).penguinImporter,
  goaitools: async () => (await import('./goaitools/read.js')).goaitoolsImporter,
  coreason: async () => (await import('./coreason/read.js')).coreasonImporter,
  magent: async () => (await import('./magent/read.js')).magentImporter,
};
const EXPORTERS: Readonly<Record<string, () => Promise<Exporter>>> = {
  penguin: async () => (await import('./penguin/write.js')).penguinExporter,
  'penguin-legacy': async () => (await import('./penguin/write.js')).penguinLegacyExporter,
  goaitools: async () => (await import('./goaitools/write.js')).goaitoolsExporter,
  'goaitools-base64': async () => (await import('./goaitools/write.js')).goaitoolsBase64Exporter,
};

/** The systems `import --from` reads. */
export function importerNames(): string[] {
  return Object.keys(IMPORTERS).sort();
}

/** The systems `export --to` writes. */
export function exporterNames(): string[] {
  return Object.keys(EXPORTERS).sort();
}

/** The importer of `system`; `INVALID_ARGUMENT` listing the known ones otherwise. */
export async function importerFor(system: string): Promise<Importer> {
  const load = Object.hasOwn(IMPORTERS, system) ? IMPORTERS[system] : undefined;
  if (load === undefined) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `No importer for ${JSON.stringify(system)}; known: ${importerNames().join(', ') || '(none)'}`,
    );
  }
  return load();
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
