/** Formatting for people: counts, tokens, times, JSON. */

const integer = new Intl.NumberFormat('en-US');

/** `12,345`. */
export function formatCount(value: number): string {
  return integer.format(Math.round(value));
}

/** `1 message`, `12,345 messages`: a count with its noun, singular for one. */
export function formatCountOf(value: number, noun: string): string {
  return `${formatCount(value)} ${noun}${Math.round(value) === 1 ? '' : 's'}`;
}

/** `12.3k` for large token counts, the plain number below 10,000. */
export function formatTokens(value: number): string {
  if (Math.abs(value) < 10_000) return formatCount(value);
  if (Math.abs(value) < 1_000_000) return `${(value / 1000).toFixed(1)}k`;
  return `${(value / 1_000_000).toFixed(2)}M`;
}

/** A share (0 to 1) as a percentage, `45.9%`; `–` when there is none. */
export function formatShare(share: number | undefined): string {
  return share === undefined ? '–' : `${(share * 100).toFixed(1)}%`;
}

/** A money amount with its currency. */
export function formatCost(value: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 4 }).format(value);
}

/** How long ago `iso` was: `3 min ago`, `2 h ago`, `5 d ago`, or the date. */
export function formatAge(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  if (seconds < 30 * 86_400) return `${Math.floor(seconds / 86_400)} d ago`;
  return iso.slice(0, 10);
}

/** JSON text pretty-printed when it parses, else as it is. */
export function prettyJsonText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** A JSON value pretty-printed. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** The first `max` characters of `text` on one line. */
export function preview(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
