/**
 * `chatstate knowledge remember|forget --user U`: a user's facts (what `remember` stores and
 * `recall` finds) — add one, possibly correcting an older one (`--supersedes`), or forget one,
 * deleting its text from the store. `chatstate search` recalls them.
 * @module
 */
import { knowledgeSessionId } from '../../active-memory/knowledge.js';
import { createSessionHandle } from '../../active-memory/session-handle.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { action, defineCommand, examples } from '../command.js';

function handleOf(store: SessionStore, userId: string) {
  return createSessionHandle({ store, sessionId: knowledgeSessionId(userId), userId });
}

/** `knowledge`. */
export const knowledge = defineCommand('knowledge', (command) => {
  command
    .summary("remember and forget facts of a user's knowledge")
    .description(
      "A user's knowledge: facts that recall (and `chatstate search`) finds. A fact that supersedes another\n" +
        'corrects it: the old one is no longer recalled (search --include-superseded shows it). Forget deletes a fact.',
    )
    .addHelpText(
      'after',
      examples(
        'knowledge remember "Alice lives in Porto." --user alice --supersedes msg_123',
        'knowledge forget msg_123 --user alice',
      ),
    );
  command
    .command('remember')
    .description("store TEXT as a fact of the user's; prints its id")
    .argument('<text>', 'the fact, as one self-contained sentence')
    .requiredOption('--user <id>', 'whose fact')
    .option('--supersedes <id>', 'the id of the fact this one corrects')
    .option('--valid-from <time>', 'from when the fact holds (ISO-8601; default now)')
    .option('--tag <tag...>', 'labels kept with the fact')
    .action(
      action<{
        readonly user: string;
        readonly supersedes?: string;
        readonly validFrom?: string;
        readonly tag?: string[];
      }>(async (context, args, options) => {
        const store = await context.store(context.storeUrl, { create: true });
        const hit = await handleOf(store, options.user).remember(args[0] as string, {
          ...(options.supersedes === undefined ? {} : { supersedes: options.supersedes }),
          ...(options.validFrom === undefined ? {} : { validFrom: options.validFrom }),
          ...(options.tag === undefined ? {} : { tags: options.tag }),
        });
        if (context.output.json)
          await context.output.record({
            id: hit.messageId,
            text: hit.text,
            validFrom: hit.validFrom,
            ...(hit.supersedes === undefined ? {} : { supersedes: hit.supersedes }),
          });
        else await context.output.line(hit.messageId);
      }),
    );
  command
    .command('forget')
    .description("delete fact ID of the user's knowledge (its text leaves the store)")
    .argument('<id>', "the fact id (as remember printed it, or a recall hit's messageId)")
    .requiredOption('--user <id>', 'whose fact')
    .action(
      action<{ readonly user: string }>(async (context, args, options) => {
        await handleOf(await context.store(), options.user).forget(args[0] as string);
        context.output.note(`forgot ${args[0]}`);
      }),
    );
});
