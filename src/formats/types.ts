/**
 * The provider-format contract: `to` writes our messages as a provider's request fields, `from`
 * reads the provider's own shapes back, `validate` lists structural problems of a wire history.
 * @module
 */
import type { Message } from '../message/message.js';
import type { ProviderName } from '../message/schema.js';

/** Something a conversion could not carry exactly (content dropped, moved or synthesized). */
export interface FormatWarning {
  /** Machine-readable kind, e.g. `orphan_tool_result`, `unsupported_part`, `missing_tool_result`. */
  readonly code: string;
  readonly message: string;
  /** The message concerned, when there is one. */
  readonly messageId?: string;
}

/** One structural problem of a wire history, as the provider would reject it. */
export interface WireProblem {
  /** Machine-readable rule, e.g. `orphan_tool_result`, `missing_tool_result`, `alternation`, `empty_content`. */
  readonly code: string;
  readonly message: string;
  /** Where, as a path into the wire value, e.g. `messages[3].content[0]`. */
  readonly path: string;
}

/** What `from` returns. */
export interface FromResult {
  readonly messages: Message[];
  readonly warnings: FormatWarning[];
}

/** A provider wire format. `Wire` is the request fields `to` produces (without `warnings`). */
export interface ProviderFormat<Wire extends object> {
  readonly provider: ProviderName;
  /** Our messages as the provider's request fields, plus warnings; the output always passes `validate`. */
  to(messages: readonly Message[]): Wire & { readonly warnings: FormatWarning[] };
  /** Reads the provider's request-shaped history back into messages. */
  from(wire: Wire): FromResult;
  /** Structural problems the provider would reject (empty when valid). */
  validate(wire: unknown): WireProblem[];
}
