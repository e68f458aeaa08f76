/**
 * `loadAgents`: agents config files, JSON and JavaScript modules. A good config gives agents whose
 * models call their provider with the key and base URL of the environment variables it names
 * (real clients, real HTTP to a protocol server); every kind of bad config is a typed error
 * naming the file and the JSON path of the problem; a model whose client package is not
 * installed is `MISSING_DEPENDENCY` naming the package, and only the packages a config uses load.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { loadAgents } from '../../src/server/agents/load-agents.js';
import { startProtocolServer, type ProtocolServer } from '../support/protocol-server.js';
import { scriptedProvider } from '../support/scripted-provider.js';
import { MODEL_KINDS, configDir, kindAgents, modelSpec, providerEnv } from './agent-configs.js';

let provider: ProtocolServer;
let files: Awaited<ReturnType<typeof configDir>>;

beforeAll(async () => {
  provider = await startProtocolServer();
  provider.respondWith(scriptedProvider);
  files = await configDir();
});
afterAll(async () => {
  await provider.close();
  await files.cleanup();
});

/** The error `loadAgents` throws for config `content` written as `name`. */
async function failure(name: string, content: unknown, env = providerEnv(provider.url)): Promise<ChatstateError> {
  const path = await files.write(name, content);
  try {
    await loadAgents(path, { env });
  } catch (error) {
    if (ChatstateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`${name} loaded`);
}

/** A one-agent config whose agent has `fields` (over a valid chat agent). */
function oneAgent(fields: Record<string, unknown>): unknown {
  return { agents: [{ id: 'a', model: modelSpec('openaiChat'), ...fields }] };
}

describe('loadAgents', () => {
  it('builds each model kind with the key and base URL from the environment', async () => {
    const path = await files.write('kinds.json', { $schema: './agents.schema.json', agents: kindAgents() });
    const loaded = await loadAgents(path, { env: providerEnv(provider.url) });
    expect(loaded.agents.map((agent) => [agent.id, agent.model.provider])).toEqual(Object.entries(MODEL_KINDS));
    expect(loaded.defaultAgentId).toBeUndefined();
    for (const agent of loaded.agents) {
      const before = provider.requests.length;
      const answer = await agent.model.complete({ messages: [Message.user(`hello ${agent.id}`)] });
      expect(Message.text(answer.message)).toBe(`echo: hello ${agent.id}`);
      const request = provider.requests[before];
      const anthropic = agent.model.provider === 'anthropic';
      expect(request?.path).toBe(
        anthropic
          ? '/v1/messages'
          : agent.model.provider === 'openaiResponses'
            ? '/v1/responses'
            : '/v1/chat/completions',
      );
      if (anthropic) {
        // The client sends the key as it chooses (x-api-key, or a bearer token in recent versions).
        expect(JSON.stringify(request?.headers)).toContain('test-anthropic-key');
        expect((request?.body as { max_tokens: number }).max_tokens).toBe(4096);
      } else expect(request?.headers.authorization).toBe('Bearer test-openai-key');
    }
  });

  it('reads the variables a config names, and sends the model settings', async () => {
    const path = await files.write('named.json', {
      defaultAgentId: 'b',
      agents: [
        {
          id: 'a',
          model: {
            ...modelSpec('openaiChat'),
            apiKeyEnv: 'TEAM_KEY',
            baseUrlEnv: 'TEAM_URL',
            maxOutputTokens: 99,
            temperature: 0.5,
          },
        },
        { id: 'b', model: { ...modelSpec('anthropic'), apiKeyEnv: 'TEAM_KEY', baseUrlEnv: 'TEAM_ANTHROPIC_URL' } },
      ],
    });
    const loaded = await loadAgents(path, {
      env: { TEAM_KEY: 'team-secret', TEAM_URL: `${provider.url}/v1/`, TEAM_ANTHROPIC_URL: provider.url },
    });
    expect(loaded.defaultAgentId).toBe('b');
    const before = provider.requests.length;
    await loaded.agents[0]?.model.complete({ messages: [Message.user('hi')] });
    await loaded.agents[1]?.model.complete({ messages: [Message.user('hi')] });
    const [chat, claude] = provider.requests.slice(before);
    expect(chat?.headers.authorization).toBe('Bearer team-secret');
    expect(chat?.body).toMatchObject({ model: 'openaiChat-test-model', max_completion_tokens: 99, temperature: 0.5 });
    expect(JSON.stringify(claude?.headers)).toContain('team-secret');
  });

  it('runs a module: its tools, a system prompt function, a ChatModel of its own, a compactor', async () => {
    const path = await files.write(
      'live.mjs',
      `export default [
        {
          id: 'live',
          model: { provider: 'openaiChat', model: 'mine', complete: async () => ({ message: { role: 'assistant', content: 'live' }, finishReason: 'stop' }) },
          system: (session) => 'session ' + session.id,
          tools: [{ name: 'clock', execute: () => 'noon' }],
          compactor: { name: 'keep-all', shouldCompact: () => false, compact: (input) => ({ messages: input.messages }) },
        },
        { id: 'declared', model: { provider: 'anthropic', name: 'claude', maxRetries: 0 }, counter: 'o200k_base' },
      ];`,
    );
    const loaded = await loadAgents(path, { env: providerEnv(provider.url) });
    const [live, declared] = loaded.agents;
    expect(live?.model.model).toBe('mine');
    expect(live?.tools?.map((tool) => tool.name)).toEqual(['clock']);
    expect(typeof live?.system).toBe('function');
    expect(live?.compactor?.name).toBe('keep-all');
    expect(declared?.model.provider).toBe('anthropic');
    expect(declared?.counter?.name).toBe('o200k_base');
  });

  it('names the file and the JSON path of each kind of mistake', async () => {
    const cases: Array<[string, unknown, RegExp, string]> = [
      [
        'provider.json',
        oneAgent({ model: { provider: 'mistral', name: 'x' } }),
        /Invalid option/,
        'agents[0].model.provider',
      ],
      ['no-model.json', { agents: [{ id: 'a' }] }, /expected object/, 'agents[0].model'],
      ['extra.json', oneAgent({ temprature: 1 }), /Unrecognized key: "temprature"/, 'agents[0]'],
      ['id.json', oneAgent({ id: '../etc' }), /letters, digits/, 'agents[0].id'],
      ['empty.json', { agents: [] }, /at least one agent/, 'agents'],
      ['top.json', [], /expected object/, '(root)'],
      [
        'tools.json',
        oneAgent({ tools: [{ name: 'clock' }] }),
        /tools need a JavaScript config module/,
        'agents[0].tools[0]',
      ],
      ['system.json', oneAgent({ system: 42 }), /expected a string/, 'agents[0].system'],
      [
        'compaction.json',
        oneAgent({ compaction: { strategy: 'messageLimit' } }),
        /strategy messageLimit needs maxMessages/,
        'agents[0].compaction',
      ],
      [
        'strategy.json',
        oneAgent({ compaction: { strategy: 'magic', turns: 1 } }),
        /Invalid option/,
        'agents[0].compaction.strategy',
      ],
      ['iterations.json', oneAgent({ maxIterations: 0 }), /Too small/, 'agents[0].maxIterations'],
      ['window.json', oneAgent({ contextWindow: 'huge' }), /Invalid/, 'agents[0].contextWindow'],
      ['counter.json', oneAgent({ counter: 'words' }), /Invalid option/, 'agents[0].counter'],
      [
        'env-name.json',
        oneAgent({ model: { ...modelSpec('openaiChat'), apiKeyEnv: 'sk-live-123' } }),
        /environment variable name/,
        'agents[0].model.apiKeyEnv',
      ],
      [
        'twice.json',
        {
          agents: [
            { id: 'a', model: modelSpec('openaiChat') },
            { id: 'a', model: modelSpec('anthropic') },
          ],
        },
        /Two agents have the id "a"/,
        'agents[1]',
      ],
      [
        'default.json',
        { defaultAgentId: 'b', agents: [{ id: 'a', model: modelSpec('openaiChat') }] },
        /default agent "b" is not one/,
        'defaultAgentId',
      ],
    ];
    for (const [name, content, message, path] of cases) {
      const error = await failure(name, content);
      expect(error.code, name).toBe('INVALID_ARGUMENT');
      expect(error.message, name).toContain(`The agents file ${files.dir}/${name}: ${path}: `);
      expect(error.message, name).toMatch(message);
      expect(error.details, name).toMatchObject({ file: `${files.dir}/${name}`, path });
    }
  });

  it('says which environment variable is missing, never what one holds', async () => {
    const env = providerEnv(provider.url);
    const { OPENAI_API_KEY: _key, ...noKey } = env;
    const missing = await failure('key.json', oneAgent({}), noKey);
    expect(missing.message).toBe(
      `The agents file ${files.dir}/key.json: agents[0].model: the environment variable OPENAI_API_KEY (the API key) is not set`,
    );
    expect(missing.details).toMatchObject({ env: 'OPENAI_API_KEY', path: 'agents[0].model' });
    const named = await failure(
      'named-key.json',
      oneAgent({ model: { ...modelSpec('anthropic'), apiKeyEnv: 'CLAUDE_KEY' } }),
    );
    expect(named.message).toMatch(
      /agents\[0\]\.model\.apiKeyEnv: the environment variable CLAUDE_KEY \(the API key\) is not set$/,
    );
    const url = await failure(
      'named-url.json',
      oneAgent({ model: { ...modelSpec('openaiChat'), baseUrlEnv: 'LOCAL_URL' } }),
    );
    expect(url.message).toMatch(
      /agents\[0\]\.model\.baseUrlEnv: the environment variable LOCAL_URL \(the base URL\) is not set$/,
    );
    const bad = await failure('bad-url.json', oneAgent({}), { ...env, OPENAI_BASE_URL: 'ftp://user:hunter2@host' });
    expect(bad.message).toMatch(
      /agents\[0\]\.model: the environment variable OPENAI_BASE_URL is not an http\(s\) URL$/,
    );
    expect(bad.message).not.toContain('hunter2');
    const empty = await failure('empty-key.json', oneAgent({}), { ...env, OPENAI_API_KEY: '' });
    expect(empty.details).toMatchObject({ env: 'OPENAI_API_KEY' });
  });

  it('gives the line and column where a file stops being JSON', async () => {
    const error = await failure('broken.json', '{\n  "agents": [\n    { "id": "a", }\n  ]\n}\n');
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe(`The agents file ${files.dir}/broken.json:3:18: not JSON (unexpected "}")`);
    expect(error.details).toMatchObject({ line: 3, column: 18 });
    const cut = await failure('cut.json', '{"agents": [');
    expect(cut.message).toMatch(/cut\.json:1:13: not JSON \(unexpected end of input\)$/);
  });

  it('refuses a file it cannot read, of another kind, or a module that fails', async () => {
    const missing = await loadAgents(`${files.dir}/none.json`).catch((error: unknown) => error);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', details: { file: `${files.dir}/none.json` } });
    const missingModule = await loadAgents(`${files.dir}/none.mjs`).catch((error: unknown) => error);
    expect(missingModule).toMatchObject({ code: 'NOT_FOUND' });
    const yaml = await failure('agents.yaml', 'agents: []');
    expect(yaml.message).toMatch(/expected a \.json file or a JavaScript module/);
    const noDefault = await failure('named.mjs', 'export const agents = [];');
    expect(noDefault.message).toMatch(/named\.mjs: \(root\): the module has no default export/);
    const throws = await failure('throws.mjs', 'throw new Error("no config for you");');
    expect(throws).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(throws.message).toMatch(/The agents module .*throws\.mjs failed to load: no config for you/);
    const badTool = await failure(
      'bad-tool.mjs',
      `export default [{ id: 'a', model: { provider: 'openaiChat', name: 'm' }, tools: [{ name: 'no spaces allowed', execute: () => 1 }] }];`,
    );
    expect(badTool.message).toMatch(/bad-tool\.mjs: agents\[0\]: agent "a": /);
    expect(badTool.details).toMatchObject({ path: 'agents[0]' });
  });

  it('is MISSING_DEPENDENCY naming the package when a model needs one not installed, and loads no other', async () => {
    const child = fileURLToPath(new URL('../support/agents-missing-child.ts', import.meta.url));
    const run = (hide: string, config: string) => {
      const result = spawnSync(process.execPath, ['--import', 'tsx', child, config], {
        encoding: 'utf8',
        env: { ...process.env, HIDE: hide },
      });
      return JSON.parse(result.stdout || '{}') as Record<string, unknown>;
    };
    const openai = await files.write('openai.json', { agents: [{ id: 'a', model: modelSpec('openaiChat') }] });
    const anthropic = await files.write('anthropic.json', { agents: [{ id: 'c', model: modelSpec('anthropic') }] });
    const vercel = await files.write('ai.json', { agents: [{ id: 'v', model: modelSpec('aiSdk') }] });
    expect(run('openai', openai)).toMatchObject({
      code: 'MISSING_DEPENDENCY',
      message: `agent "a" of ${openai} needs the package openai: npm install openai`,
      details: { packages: ['openai'] },
    });
    expect(run('@ai-sdk/openai', vercel)).toMatchObject({
      code: 'MISSING_DEPENDENCY',
      details: { packages: ['@ai-sdk/openai'] },
    });
    // Without the SDKs it does not use, a config loads: none is imported before an agent needs it.
    expect(run('openai,ai,@ai-sdk/openai', anthropic)).toEqual({ agents: [['c', 'anthropic']] });
  });
});
