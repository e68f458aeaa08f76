/**
 * A LangGraph thread as a transcript: a header that says which checkpoint is shown and what the
 * conversation (the append log) holds beside it — branches left by forks, messages replaced by
 * edits — then the checkpoint's messages as `writeTranscript` writes any session's.
 * @module
 */
import type { CheckpointSummary, ThreadView } from '../adapters/langgraph/thread-view.js';
import type { Message } from '../message/message.js';
import type { Output } from './output.js';
import { writeEntries, type TranscriptOptions } from './transcript.js';

/** What `writeThreadTranscript` writes beside the messages. */
export interface ThreadTranscriptOptions extends TranscriptOptions {
  /** List the thread's checkpoints (newest first) after the header. */
  readonly checkpoints?: boolean;
}

function about(checkpoint: CheckpointSummary): string {
  const parts = [
    checkpoint.step === undefined ? '' : `step ${checkpoint.step}`,
    checkpoint.source ?? '',
    `${checkpoint.messageCount} messages`,
  ];
  return parts.filter((part) => part !== '').join(', ');
}

/** The line of one checkpoint in the list. */
function checkpointLine(output: Output, checkpoint: CheckpointSummary): string {
  const marks = [checkpoint.current ? 'shown' : '', checkpoint.onPath && !checkpoint.current ? 'ancestor' : ''];
  if (checkpoint.tip) marks.push('branch tip');
  const shown = marks.filter((mark) => mark !== '').join(', ');
  const line = `  ${checkpoint.current ? '*' : ' '} ${checkpoint.id}  ${output.style('dim', checkpoint.ts)}  ${about(checkpoint)}`;
  return shown === '' ? line : `${line}  (${shown})`;
}

/** Writes `view`'s header and the transcript of `shown` (a part of `view.messages`). */
export async function writeThreadTranscript(
  output: Output,
  view: ThreadView,
  shown: readonly Message[],
  options: ThreadTranscriptOptions,
): Promise<void> {
  const { checkpoint } = view;
  const namespace = view.namespace === '' ? '' : ` (namespace ${view.namespace})`;
  if (checkpoint === undefined) {
    await output.line(
      `${output.style('bold', `LangGraph thread ${view.threadId}${namespace}`)}  no checkpoint yet; the conversation holds ${view.logCount} messages`,
    );
  } else {
    const newest = checkpoint.id === view.latest ? 'the newest' : `not the newest: ${view.latest ?? '?'}`;
    const showing = shown.length === view.messageCount ? '' : ` (showing ${shown.length})`;
    await output.line(
      `${output.style('bold', `LangGraph thread ${view.threadId}${namespace}`)} at checkpoint ${checkpoint.id} (${newest}; ${about(checkpoint)})`,
    );
    await output.line(
      `${view.messageCount} messages${showing}; the conversation ${view.conversation} holds ${view.logCount}` +
        (view.elsewhere.count === 0 ? '' : `, ${view.elsewhere.count} of them not in this checkpoint`),
    );
  }
  const replaced = view.elsewhere.messages.filter((entry) => entry.kind === 'replaced');
  if (replaced.length > 0)
    await output.line(
      `replaced: ${replaced.map((entry) => `#${entry.message.seq ?? '?'} by #${entry.now ?? '?'}`).join(', ')}`,
    );
  const tips = view.checkpoints.filter((each) => each.tip && !each.current);
  if (tips.length > 0)
    await output.line(
      `other branches: ${tips.map((tip) => `${tip.id} (${about(tip)})`).join(', ')}${view.moreCheckpoints ? ' (of the newest checkpoints)' : ''}`,
    );
  if (view.elsewhere.count > 0 || tips.length > 0)
    await output.line(
      output.style(
        'dim',
        '--log shows the whole conversation, --checkpoint ID another checkpoint, --checkpoints the list',
      ),
    );
  if (options.checkpoints === true) {
    await output.line(`checkpoints, newest first${view.moreCheckpoints ? ' (the newest only)' : ''}:`);
    for (const each of view.checkpoints) await output.line(checkpointLine(output, each));
  }
  await output.line('');
  await writeEntries(output, view.messages, shown, options);
}
