/**
 * The stats panel: messages and tokens by category, tool calls by name, measured usage with the
 * cached share of the input (a figure and a bar), and cost when priced.
 */
import { formatCost, formatCount, formatShare, formatTokens } from './format.js';
import { CATEGORIES, type SessionStats } from './types.js';
import { cachedShareOf, shareWidth } from './usage-share.js';

/** The panel. */
export function StatsPanel({ stats }: { readonly stats: SessionStats }) {
  const tools = Object.entries(stats.stats.toolCalls.byName).sort((a, b) => b[1] - a[1]);
  const models = Object.entries(stats.usage.byModel);
  const share = cachedShareOf(stats.usage);
  return (
    <section class="stats card" aria-labelledby="stats-title" data-testid="stats">
      <h2 id="stats-title">Statistics</h2>
      <table class="kv">
        <caption>Messages and tokens by category ({stats.stats.tokens.counter})</caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col">Messages</th>
            <th scope="col">Tokens</th>
          </tr>
        </thead>
        <tbody>
          {CATEGORIES.map((category) => (
            <tr key={category}>
              <th scope="row">
                <span class={`swatch cat-${category}`} aria-hidden="true" /> {category.replace('_', ' ')}
              </th>
              <td>{formatCount(stats.stats.byCategory[category] ?? 0)}</td>
              <td>{formatTokens(stats.stats.tokens.byCategory[category] ?? 0)}</td>
            </tr>
          ))}
          <tr>
            <th scope="row">All</th>
            <td>{formatCount(stats.stats.messages)}</td>
            <td>{formatTokens(stats.stats.tokens.total)}</td>
          </tr>
        </tbody>
      </table>
      <table class="kv" data-testid="tool-stats">
        <caption>Tool calls by name ({formatCount(stats.stats.toolCalls.total)})</caption>
        <tbody>
          {tools.length === 0 ? (
            <tr>
              <td class="muted">No tool calls</td>
            </tr>
          ) : (
            tools.map(([name, count]) => (
              <tr key={name}>
                <th scope="row" class="mono">
                  {name}
                </th>
                <td>{formatCount(count)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      <table class="kv" data-testid="usage-stats">
        <caption>Measured usage ({formatCount(stats.usage.calls)} model calls)</caption>
        <tbody>
          <tr>
            <th scope="row">Input tokens</th>
            <td>{formatCount(stats.usage.inputTokens)}</td>
          </tr>
          <tr>
            <th scope="row">
              <span class="swatch cached" aria-hidden="true" /> Cached input
            </th>
            <td>{formatCount(stats.usage.cachedInputTokens)}</td>
          </tr>
          <tr>
            <th scope="row">Cache writes</th>
            <td>{formatCount(stats.usage.cacheWriteInputTokens ?? 0)}</td>
          </tr>
          <tr data-testid="cached-share">
            <th scope="row">Cached share</th>
            <td>
              <span
                class="share-bar"
                role="img"
                aria-label={`${formatShare(share)} of input tokens served from the prompt cache`}
              >
                <span class="share-cached" style={{ width: shareWidth(share) }} />
              </span>{' '}
              {formatShare(share)}
            </td>
          </tr>
          <tr>
            <th scope="row">Output tokens</th>
            <td>{formatCount(stats.usage.outputTokens)}</td>
          </tr>
          {models.map(([model, usage]) => (
            <tr key={model}>
              <th scope="row" class="mono">
                {model}
              </th>
              <td>
                {formatCount(usage.calls)} calls · {formatTokens(usage.inputTokens)} in (
                {formatShare(cachedShareOf(usage))} cached) · {formatTokens(usage.outputTokens)} out
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {stats.cost !== undefined && (
        <table class="kv" data-testid="cost">
          <caption>Cost</caption>
          <tbody>
            <tr>
              <th scope="row">Total</th>
              <td>{formatCost(stats.cost.total, stats.cost.currency)}</td>
            </tr>
            {Object.entries(stats.cost.byModel).map(([model, cost]) => (
              <tr key={model}>
                <th scope="row" class="mono">
                  {model}
                </th>
                <td>{formatCost(cost, stats.cost?.currency ?? 'USD')}</td>
              </tr>
            ))}
            {stats.cost.unpriced.length > 0 && (
              <tr>
                <th scope="row">No price</th>
                <td>{stats.cost.unpriced.join(', ')}</td>
              </tr>
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}
