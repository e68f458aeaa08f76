/** What each writer of the concurrent-append suite appends, and what the suite then expects of a transcript. */
import type { ClaudeSessionEntry } from '../../../src/adapters/claude-agent-sdk/index.js';

/** The project every writer appends to. */
export const PROJECT = '-srv-concurrent-project';

/**
 * Batch `index` of `writer` for `sessionId`: a prompt and an answer (with uuids) and a title
 * without one (last-wins in the summary, so a summary folded out of order would show it).
 */
export function writerBatch(writer: string, sessionId: string, index: number): ClaudeSessionEntry[] {
  const tag = `${writer}-${index}`;
  return [
    {
      type: 'user',
      uuid: `${sessionId}-${tag}-prompt`,
      sessionId,
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString(),
      message: { role: 'user', content: `prompt ${tag}` },
      cwd: '/srv/concurrent/project',
      isSidechain: false,
    },
    {
      type: 'assistant',
      uuid: `${sessionId}-${tag}-answer`,
      sessionId,
      message: { role: 'assistant', content: [{ type: 'text', text: `answer ${tag}` }] },
    },
    { type: 'custom-title', customTitle: `title ${tag}`, sessionId },
  ];
}

/** The entries `writer` leaves in session `sessionId` (position `slot` of `sessions`), in its own order. */
export function writerEntries(
  writer: string,
  sessionId: string,
  slot: number,
  sessions: number,
  batches: number,
): ClaudeSessionEntry[] {
  const entries: ClaudeSessionEntry[] = [];
  for (let index = slot; index < batches; index += sessions) {
    const batch = writerBatch(writer, sessionId, index);
    entries.push(...batch);
    // The retry adds only the entry without a uuid, again.
    if (index % 4 === 3) entries.push(...batch.filter((entry) => entry.uuid === undefined));
  }
  return entries;
}
