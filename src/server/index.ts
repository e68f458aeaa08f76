/**
 * `chatstate/server`: the HTTP API — `createServerApp` (a Hono fetch handler for any runtime),
 * `startServer` (Node, with a graceful close), `loadAgents` (the agents turns run, from a config
 * file), API keys and the tenant views every request goes through.
 * @module
 */
export { DEFAULT_CONTEXT_WINDOW, createServerApp, type ServerAppOptions } from './app.js';
export { PUBLISHED_PRICES } from '../session/published-prices.js';
export {
  cachedShare,
  checkPrices,
  costOf,
  usageTotals,
  type Cost,
  type Price,
  type Prices,
  type UsageCounts,
  type UsageTotals,
} from '../session/usage-totals.js';
export { startServer, DEFAULT_GRACE_MS, type RunningServer, type StartServerOptions } from './node.js';
export { isLoopback } from './loopback.js';
export { loadAgents, type LoadAgentsOptions, type LoadedAgents } from './agents/load-agents.js';
export type { ServerAgent } from './agents/server-agent.js';
export {
  MODEL_PROVIDERS,
  type AgentConfig,
  type AgentsConfig,
  type CompactionConfig,
  type ModelProvider,
  type ModelSpec,
} from './agents/config-schema.js';
export type { Environment } from './agents/build-model.js';
export { KeyRing, hashKey, newKey, type KeyEntry, type Principal, type Role } from './auth/api-keys.js';
export { STATUS_OF_CODE, errorAnswer, type ErrorBody } from './errors.js';
export type { LogLine } from './request-log.js';
export { tenantStore, type TenantScope } from '../tenancy/tenant-store.js';
