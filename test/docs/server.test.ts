/**
 * The agents files of docs/server.md ("Agent turns") load as written: the JSON one with the
 * variables it names set, the .mjs one with its tool (its `./parcels.js` a stand-in). The curl
 * blocks of the page run in test/docs/shell.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadAgents } from '../../src/server/agents/load-agents.js';
import { codeBlocks, docsSection } from '../support/readme-example.js';

const directories: string[] = [];
afterAll(async () => {
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
});

async function block(lang: string): Promise<string> {
  const code = codeBlocks(await docsSection('docs/server.md', '## Agent turns'), lang)[0];
  if (code === undefined) throw new Error(`docs/server.md: "Agent turns" has no ${lang} block`);
  return code;
}

async function directory(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), 'chatstate-docs-agents-'));
  directories.push(made);
  return made;
}

describe('docs/server.md: agent turns', () => {
  it('has an agents.json that loads, with the variables its shell lines export', async () => {
    const dir = await directory();
    await writeFile(join(dir, 'agents.json'), await block('json'));
    const exported = (await block('sh')).match(/^export (.*?)\s*(?:#|$)/m)?.[1] ?? '';
    const env = Object.fromEntries(exported.split(/\s+/).map((pair) => [pair.split('=')[0], 'sk-test']));
    expect(Object.keys(env)).toEqual(['OPENAI_API_KEY', 'TEAM_CLAUDE_KEY']);
    const loaded = await loadAgents(join(dir, 'agents.json'), { env });
    expect(loaded.defaultAgentId).toBe('support');
    expect(loaded.agents.map((agent) => [agent.id, agent.model.provider])).toEqual([
      ['support', 'openaiChat'],
      ['claude', 'anthropic'],
    ]);
    expect(loaded.agents[0]?.memoryTools).toBe(true);
    expect(loaded.agents[0]?.contextWindow).toBe(32000);
    expect(loaded.agents[0]?.compactor).toBeDefined();
    // Without the variable it names, the file is refused by its name.
    await expect(loadAgents(join(dir, 'agents.json'), { env: { OPENAI_API_KEY: 'sk-test' } })).rejects.toThrow(
      'TEAM_CLAUDE_KEY',
    );
  });

  it('has an agents.mjs whose tool runs', async () => {
    const dir = await directory();
    await writeFile(join(dir, 'agents.mjs'), await block('js'));
    await writeFile(
      join(dir, 'parcels.js'),
      'export const lookUpParcel = (tracking) => ({ tracking, status: "in transit" });\n',
    );
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n');
    const loaded = await loadAgents(join(dir, 'agents.mjs'), { env: { OPENAI_API_KEY: 'sk-test' } });
    const tool = loaded.agents[0]?.tools?.[0];
    expect(tool?.name).toBe('parcel_status');
    const context = {} as Parameters<NonNullable<typeof tool>['execute']>[1];
    expect(await tool?.execute({ tracking: 'P-1' }, context)).toEqual({ tracking: 'P-1', status: 'in transit' });
  });
});
