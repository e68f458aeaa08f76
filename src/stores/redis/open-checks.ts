/**
 * What the Redis driver checks when it opens on a cluster, or on a server that may be one: the
 * options a cluster cannot honour, whether the scripts loaded somewhere, and a cluster node
 * mistaken for one server.
 * @module
 */
import { ChatstateError, InvalidInputError } from '../../errors.js';
import type { RedisConnection } from './connection.js';
import type { RedisConfirm } from './driver.js';
import { text } from './records.js';

/** Write confirmation needs `WAIT` on the connection of the node that took the write, which a cluster client does not expose. */
export function refuseClusterConfirm(confirm: Required<RedisConfirm> | undefined, store: string): void {
  if (confirm !== undefined)
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: confirm is not supported on Redis Cluster yet`);
}

/**
 * On a cluster each `SCRIPT LOAD` reaches some node (the others learn a script from `EVAL` on its
 * first `NOSCRIPT`): the store opens when one of them proves the cluster runs Lua, so that a
 * cluster with a master down opens and serves the other masters' sessions. It fails with the
 * first error when none did.
 */
export async function anyNodeLoaded(loads: ReadonlyArray<Promise<unknown>>): Promise<void> {
  const settled = await Promise.allSettled(loads);
  const refused = settled.find(
    (result): result is PromiseRejectedResult =>
      result.status === 'rejected' && !ChatstateError.hasCode(result.reason, 'UNAVAILABLE'),
  );
  // An error that is no outage (Lua refused) fails the open whatever the other nodes said.
  if (refused !== undefined) throw refused.reason;
  if (settled.some((result) => result.status === 'fulfilled')) return;
  throw (settled[0] as PromiseRejectedResult).reason;
}

/**
 * Refuses a Redis Cluster node opened as one server: its scripts would run only for the sessions
 * whose keys hash to that node's slots. A server that does not answer `INFO` is taken as it is.
 */
export async function refuseClusterNode(connection: RedisConnection, store: string): Promise<void> {
  let info: unknown;
  try {
    info = await connection.call('INFO', ['cluster'], 'read');
  } catch (error) {
    if (ChatstateError.hasCode(error, 'UNAVAILABLE')) throw error;
    return;
  }
  if (/^cluster_enabled:1\b/m.test(text(info) ?? ''))
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${store}: the server is a Redis Cluster node: open the cluster with a redis+cluster:// URL`,
    );
}
