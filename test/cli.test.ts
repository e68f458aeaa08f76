import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import type { formats } from '../src/formats/index.js';
import { Message } from '../src/message/message.js';
import { Session } from '../src/session/session.js';

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(args, (line) => lines.push(line));
  return { code, out: lines.join('\n') };
}

// Every temporary directory a test made, removed after it.
const directories: string[] = [];

afterEach(async () => {
  await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function sessionFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-'));
  directories.push(dir);
  const session = Session.create({ id: 'cli-1' }).append(
    Message.user('What is in main.el?'),
    Message.assistant('', { toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'main.el' } }] }),
    Message.tool('c1', ';;; main.el'),
    Message.assistant('A header comment.'),
  );
  const file = join(dir, 'session.json');
  await writeFile(file, JSON.stringify(session));
  return file;
}

describe('chatstate CLI', () => {
  it('shows a saved session as [ROLE] lines', async () => {
    const { code, out } = await run(['show', await sessionFile()]);
    expect(code).toBe(0);
    expect(out).toContain('[TOOL] tool_use: read_file {"path":"main.el"}');
  });

  it('prints statistics as JSON', async () => {
    const { out } = await run(['stats', await sessionFile(), '--counter', 'o200k_base']);
    expect(JSON.parse(out)).toMatchObject({
      messages: 4,
      toolCalls: { byName: { read_file: 1 } },
      tokens: { counter: 'o200k_base' },
    });
  });

  it('formats for a provider and validates wire files', async () => {
    const file = await sessionFile();
    const { out } = await run(['format', 'anthropic', file]);
    const wire = JSON.parse(out) as ReturnType<typeof formats.anthropic.to>;
    expect(wire.messages[0]?.role).toBe('user');
    const wireFile = join(file, '..', 'wire.json');
    await writeFile(wireFile, JSON.stringify({ messages: wire.messages }));
    expect(await run(['validate', 'anthropic', wireFile])).toEqual({ code: 0, out: 'valid' });
    await writeFile(wireFile, JSON.stringify({ messages: wire.messages.slice(1) }));
    const invalid = await run(['validate', 'anthropic', wireFile]);
    expect(invalid.code).toBe(1);
    expect(invalid.out).toMatch(/first_not_user|orphan_tool_result/);
  });

  it('rejects bad arguments with typed errors', async () => {
    await expect(run(['nope'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(run(['format', 'martian', 'x.json'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(run(['show', '--bogus'])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((await run([])).code).toBe(2);
    await expect(run(['show', '/nonexistent/session.json'])).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('rejects counter names that are Object members (review regression)', async () => {
    const file = await sessionFile();
    for (const counter of ['constructor', 'toString', '__proto__']) {
      await expect(run(['stats', file, '--counter', counter])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });

  it('reports a corrupted session file as INVALID_SESSION', async () => {
    const file = await sessionFile();
    await writeFile(file, '{"formatVersion":1,"id":"../../etc"}');
    await expect(run(['show', file])).rejects.toMatchObject({ code: 'INVALID_SESSION' });
  });
});
