/**
 * How the graph is kept in its session: each message holds one change (additions) as a JSON file
 * part, so that recall, which searches message text, never finds the graph's internals. Folding
 * the messages in order gives the graph. A large change is cut into several messages, appended in
 * one atomic call.
 * @module
 */
import { DataError } from '../../errors.js';
import { Message } from '../../message/message.js';
import { checkEntities, checkEntityObservations, checkRelations } from './checks.js';
import { GraphState } from './graph-state.js';
import type { EntityObservations, GraphAdditions, GraphEntity, GraphRelation } from './types.js';

/** Media type of the file part that holds a change. */
const MEDIA_TYPE = 'application/json';
/** The format of a stored change. */
const FORMAT = 1;
/** Largest JSON of one stored change before it is cut into more messages: 256 KiB. */
const CHUNK_CHARS = 256 * 1024;

/** The messages that store `change`, each at most about `CHUNK_CHARS` of JSON (at least one item each). */
export function changeMessages(change: GraphAdditions): Message[] {
  const messages: Message[] = [];
  let current = {
    entities: [] as GraphEntity[],
    observations: [] as EntityObservations[],
    relations: [] as GraphRelation[],
  };
  let chars = 0;
  const flush = (): void => {
    if (current.entities.length + current.observations.length + current.relations.length === 0) return;
    messages.push(changeMessage(current));
    current = { entities: [], observations: [], relations: [] };
    chars = 0;
  };
  const add = <K extends keyof typeof current>(kind: K, item: (typeof current)[K][number]): void => {
    const size = JSON.stringify(item).length;
    if (chars > 0 && chars + size > CHUNK_CHARS) flush();
    (current[kind] as unknown[]).push(item);
    chars += size;
  };
  for (const entity of change.entities) add('entities', entity);
  for (const entry of change.observations) if (entry.observations.length > 0) add('observations', entry);
  for (const relation of change.relations) add('relations', relation);
  flush();
  return messages;
}

function changeMessage(change: GraphAdditions): Message {
  const json = JSON.stringify({ format: FORMAT, ...change });
  return Message.context(
    [
      {
        type: 'file',
        data: Buffer.from(json, 'utf8').toString('base64'),
        mediaType: MEDIA_TYPE,
        filename: 'graph-change.json',
      },
    ],
    { metadata: { knowledgeGraph: { format: FORMAT } } },
  );
}

/** The change a stored message holds; `CORRUPT` naming the message when it is not one. */
export function decodeChange(message: Message, sessionId: string): GraphAdditions {
  const corrupt = (why: string, cause?: unknown): DataError =>
    new DataError('CORRUPT', `Knowledge graph ${sessionId}: message ${message.id} is not a change (${why})`, {
      details: { sessionId, messageId: message.id },
      ...(cause === undefined ? {} : { cause }),
    });
  const part = Array.isArray(message.content) ? message.content[0] : undefined;
  if (part?.type !== 'file' || part.mediaType !== MEDIA_TYPE || part.data === undefined) throw corrupt('no JSON part');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(part.data, 'base64').toString('utf8'));
  } catch (error) {
    throw corrupt('not JSON', error);
  }
  const body = parsed as Record<string, unknown> | null;
  if (typeof body !== 'object' || body === null || body.format !== FORMAT) throw corrupt('unknown format');
  try {
    return {
      entities: checkEntities(body.entities ?? [], 'entities', Infinity),
      observations: checkEntityObservations(body.observations ?? [], 'observations', 'observations', Infinity),
      relations: checkRelations(body.relations ?? [], 'relations', Infinity),
    };
  } catch (error) {
    throw corrupt('invalid content', error);
  }
}

/** The graph the messages of its session hold. */
export function foldChanges(messages: readonly Message[], sessionId: string): GraphState {
  const state = new GraphState();
  for (const message of messages) state.apply(decodeChange(message, sessionId));
  return state;
}

/** The messages that store `state` whole (a rewrite after a removal, or a compaction of a long log). */
export function snapshotMessages(state: GraphState): Message[] {
  const { entities, relations } = state.data();
  return changeMessages({ entities, observations: [], relations });
}
