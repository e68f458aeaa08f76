/**
 * The badge of an internal session: its kind (`SessionSummary.kind`), or "knowledge" for a
 * knowledge session saved before sessions had kinds (known by its id).
 */
import { isKnowledge, kindLabel } from './session-title.js';
import type { SessionRow } from './types.js';

/** The kind badge of `row`; nothing for a conversation. */
export function KindBadge({ row }: { readonly row: Pick<SessionRow, 'id' | 'kind'> }) {
  const kind = row.kind ?? (isKnowledge(row) ? 'knowledge' : undefined);
  if (kind === undefined) return null;
  return (
    <span class={`badge kind${kind === 'knowledge' ? ' knowledge' : ''}`} data-testid="kind-badge" data-kind={kind}>
      {kindLabel(kind)}
    </span>
  );
}
