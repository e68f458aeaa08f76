/** docs/adapters.md's Claude Agent SDK example, and examples/claude-agent-sdk.ts, must run as written. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { SessionMessage, SDKSessionInfo } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../src/session/session.js';
import { docsExample, importExample } from '../../support/readme-example.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chatstate-casreadme-'));
  dirs.push(dir);
  return dir;
}

describe('docs/adapters.md: chatstate/claude-agent-sdk', () => {
  it('runs the example: the SDK lists, reads and forks the session; chatstate reads the transcript', async () => {
    const file = join(await tempDir(), 'claude-sessions.db');
    const code = (await docsExample('docs/adapters.md', '## Claude Agent SDK: `chatstate/claude-agent-sdk`'))
      .replace("'./claude-sessions.db'", JSON.stringify(file))
      .replace(/console\.log\(/g, 'void (');
    const module = await importExample<{
      listed: SDKSessionInfo;
      messages: SessionMessage[];
      fork: { sessionId: string };
      conversation: Session;
      sessionId: string;
    }>('readme-claude-agent-sdk.ts', `${code}\nexport { listed, messages, fork, conversation, sessionId };\n`);
    // What the comments say.
    expect(module.listed.summary).toBe('Supported Node versions');
    expect(module.listed.sessionId).toBe(module.sessionId);
    expect(module.messages.map((message) => message.type)).toEqual(['user', 'assistant']);
    expect(module.fork.sessionId).not.toBe(module.sessionId);
    expect(module.conversation.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'system']);
  });
});

describe('examples/claude-agent-sdk.ts', () => {
  it('runs offline to the end', async () => {
    const dir = await tempDir();
    const example = fileURLToPath(new URL('../../../examples/claude-agent-sdk.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', example], {
      env: { ...process.env, CHATSTATE_STORE: `file:${dir}` },
      timeout: 60_000,
    });
    expect(stdout).toContain('resumed in a new process: 9 entries, deep-equal');
    expect(stdout).toContain('subagents: agent-explore1');
  });
});
