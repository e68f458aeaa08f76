/**
 * Agents configs for the server tests: one agent per model kind, each pointed (through the
 * environment variables a config names) at a protocol server playing the scripted provider, and
 * written to a real file that `loadAgents` reads.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgents, type LoadedAgents } from '../../src/server/agents/load-agents.js';

/** The test's agents by id, and the provider of each. */
export const MODEL_KINDS = {
  chat: 'openaiChat',
  responses: 'openaiResponses',
  claude: 'anthropic',
  vercel: 'aiSdk',
} as const;

/** The agent ids of `MODEL_KINDS`. */
export type KindAgent = keyof typeof MODEL_KINDS;

/** The environment that points every provider at the protocol server at `url`. */
export function providerEnv(url: string): Record<string, string> {
  return {
    OPENAI_API_KEY: 'test-openai-key',
    OPENAI_BASE_URL: `${url}/v1`,
    ANTHROPIC_API_KEY: 'test-anthropic-key',
    ANTHROPIC_BASE_URL: url,
  };
}

/** A declared model of `provider` (no retries: a failure is seen at once). */
export function modelSpec(provider: string): Record<string, unknown> {
  return { provider, name: `${provider}-test-model`, maxRetries: 0 };
}

/** One agent per model kind, with `fields` added to each. */
export function kindAgents(fields: Record<string, unknown> = {}): Array<Record<string, unknown>> {
  return Object.entries(MODEL_KINDS).map(([id, provider]) => ({ id, model: modelSpec(provider), ...fields }));
}

/** A temporary directory for config files, removed by `cleanup`. */
export async function configDir(): Promise<{
  dir: string;
  write(name: string, content: unknown): Promise<string>;
  cleanup(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'chatstate-agents-'));
  return {
    dir,
    async write(name, content) {
      const path = join(dir, name);
      await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The agents of a JSON config holding `config`, loaded against the protocol server at `url`. */
export async function loadConfig(url: string, config: unknown): Promise<LoadedAgents> {
  const files = await configDir();
  try {
    return await loadAgents(await files.write('agents.json', config), { env: providerEnv(url) });
  } finally {
    await files.cleanup();
  }
}
