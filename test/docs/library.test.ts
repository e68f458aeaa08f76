/** docs/library.md's tour is code a newcomer will paste: it must run as written. */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/message/message.js';
import type { Session } from '../../src/session/session.js';
import { docsExample, importExample } from '../support/readme-example.js';

/** Imports the tour (written under .tmp/) with `STATE_KEY` set as given. */
async function importTour(name: string, stateKey: string | undefined): Promise<Record<string, unknown>> {
  const tour = await docsExample('docs/library.md', '## A tour');
  const previous = process.env.STATE_KEY;
  if (stateKey === undefined) delete process.env.STATE_KEY;
  else process.env.STATE_KEY = stateKey;
  try {
    return await importExample(name, `${tour}\nexport { session, compacted, result, warnings, restored, rejected };\n`);
  } finally {
    if (previous === undefined) delete process.env.STATE_KEY;
    else process.env.STATE_KEY = previous;
  }
}

describe('docs/library.md', () => {
  it('has a tour that runs against the library, as its comments say', async () => {
    const module = (await importTour('docs-library-tour.ts', 'a-test-key-that-is-long-enough')) as {
      session: Session;
      compacted: Session;
      result: unknown;
      restored: Message[];
      rejected: unknown;
      warnings: unknown[];
    };
    expect(module.rejected).toBeUndefined();
    expect(module.warnings).toEqual([]);
    // "here it is `undefined` and `compacted` is `session` itself"
    expect(module.result).toBeUndefined();
    expect(module.compacted.messages).toBe(module.session.messages);
    // "It leaves out the leading system message: `restored` holds the four messages after it"
    expect(module.session.messages[0]?.role).toBe('system');
    expect(module.restored.map((message) => message.id)).toEqual(
      module.session.messages.slice(1).map((message) => message.id),
    );
  });

  it('has a tour that says what is missing when STATE_KEY is not set', async () => {
    await expect(importTour('docs-library-tour-without-key.ts', undefined)).rejects.toThrow(
      'Set STATE_KEY to a secret of 16 or more characters',
    );
  });
});
