/**
 * Options of `ChatstateSaver`.
 * @module
 */
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import type { Compactor, Strategy } from '../../compaction/types.js';
import type { TokenCounter } from '../../tokens/counter.js';

/** Compaction at the end of a turn: applied to the messages channel on the put whose newest message is a final answer. */
export interface SaverCompaction {
  /** The compactor (its trigger decides when); any chatstate compactor or strategy. */
  readonly compactor: Compactor | Strategy;
  /** Counts tokens for the compactor. @default tokens.estimate */
  readonly counter?: TokenCounter;
}

/** Options of `ChatstateSaver`. */
export interface ChatstateSaverOptions {
  /** Serializer of channel values, metadata and writes. @default LangGraph's JsonPlusSerializer */
  readonly serde?: SerializerProtocol;
  /** Channels kept as chatstate messages (when their value is a list of LangChain messages). @default ['messages'] */
  readonly messageChannels?: readonly string[];
  /** First part of every session id the saver makes (1–6 letters or digits). @default 'lg' */
  readonly sessionPrefix?: string;
  /** Most sequence ranges a checkpoint's message list may span before it is stored again as one fresh copy. @default 32 */
  readonly maxRanges?: number;
  /** Tool-safe compaction at turn boundaries (never inside a tool loop). @default none */
  readonly compaction?: SaverCompaction;
}
