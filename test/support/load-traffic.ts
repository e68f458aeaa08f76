/**
 * Load through the HTTP API with autocannon, against one or several `chatstate serve` processes
 * on one database, and the exactly-once check afterwards. Every connection loops over a mix:
 * appends to shared sessions with `If-Match` (a 412 names the version now; the append is retried
 * with the same message id, by whichever connection comes next), tail reads, lists, a probe of
 * another tenant's sessions, and optionally turns against a local model server. Each answer is
 * searched for the other tenant's marker: a cross-tenant read is counted, never assumed away.
 */
import autocannon from 'autocannon';

/** What to run. */
export interface LoadPlan {
  /** The servers' base URLs; each gets its own autocannon instance and connections. */
  readonly servers: readonly string[];
  /** The key of the tenant the traffic runs as. */
  readonly key: string;
  /** Sessions of that tenant the appends share (they exist before the run). */
  readonly sessions: readonly string[];
  /** Another tenant's data: its session ids (probed) and a marker its messages hold (never answered). */
  readonly victim: { readonly sessions: readonly string[]; readonly token: string };
  readonly connectionsPerServer: number;
  /** Seconds of traffic; or `requestsPerServer`, which takes precedence. */
  readonly durationSeconds?: number;
  readonly requestsPerServer?: number;
  /** Turns in the mix: each one a new input on a session of its own connection's set. */
  readonly turns?: { readonly sessions: readonly string[] };
  /** Prefix of the message ids this run sends (unique per run). */
  readonly runId: string;
}

/** What a run did and saw. */
export interface LoadOutcome {
  /** The plan's `runId`: the message ids of this run start with it and a dash. */
  readonly runId: string;
  /** Requests answered, and per second over the run (all servers). */
  readonly requests: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  /** Appends acknowledged (200) and refused as stale (412, then retried). */
  readonly acknowledged: number;
  readonly stale: number;
  readonly turns: number;
  /** Connection errors and timeouts (their appends' outcome is unknown: stored at most once). */
  readonly errors: number;
  /** Answers that held the other tenant's marker. */
  readonly crossTenantReads: number;
  /** Answers of a status a request of its kind may not get. */
  readonly unexpected: readonly string[];
  /** Ids acknowledged, by session. */
  readonly acked: ReadonlyMap<string, ReadonlySet<string>>;
  /** Ids sent whose answer never came, by session. */
  readonly unknown: ReadonlyMap<string, ReadonlySet<string>>;
  /** Ids sent at all, by session. */
  readonly sent: ReadonlyMap<string, ReadonlySet<string>>;
}

/** `autocannon.aggregateResult`, which its type definitions leave out: one result of several instances' raw results. */
const aggregateResult = (
  autocannon as unknown as {
    aggregateResult(results: readonly autocannon.Result[], options: { url: string }): autocannon.Result;
  }
).aggregateResult;

interface AppendJob {
  readonly session: string;
  readonly id: string;
}

/** The ETag header of an answer, whatever its case. */
function etagVersion(headers: Record<string, unknown> | undefined): number | undefined {
  if (headers === undefined) return undefined;
  for (const [name, value] of Object.entries(headers))
    if (name.toLowerCase() === 'etag' && typeof value === 'string') {
      const version = Number(/^"(\d+)"$/.exec(value)?.[1]);
      return Number.isSafeInteger(version) ? version : undefined;
    }
  return undefined;
}

function setOf(map: Map<string, Set<string>>, key: string): Set<string> {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  return set;
}

/** Runs the plan; resolves when every instance has finished. */
export async function runLoad(plan: LoadPlan): Promise<LoadOutcome> {
  const versions = new Map<string, number>();
  const retries: AppendJob[] = [];
  const acked = new Map<string, Set<string>>();
  const sent = new Map<string, Set<string>>();
  const inflight = new Map<string, AppendJob>();
  const unexpected: string[] = [];
  let next = 0;
  let stale = 0;
  let turns = 0;
  let crossTenantReads = 0;
  const auth = { authorization: `Bearer ${plan.key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

  const check = (kind: string, allowed: readonly number[], status: number, body: string): void => {
    if (body.includes(plan.victim.token)) crossTenantReads += 1;
    if (!allowed.includes(status) && unexpected.length < 50)
      unexpected.push(`${kind}: ${status} ${body.slice(0, 200)}`);
  };

  /** An append step of the cycle; `slot` names its job in the cycle's context. */
  const append = (slot: string): autocannon.Request => ({
    method: 'POST',
    setupRequest: (request, context) => {
      const job = retries.shift() ?? { session: pick(plan.sessions), id: `${plan.runId}-${next++}` };
      (context as Record<string, AppendJob>)[slot] = job;
      setOf(sent, job.session).add(job.id);
      inflight.set(job.id, job);
      const version = versions.get(job.session);
      return {
        ...request,
        path: `/sessions/${job.session}/messages`,
        headers: { ...json, ...(version === undefined ? {} : { 'if-match': `"${version}"` }) },
        body: JSON.stringify({ messages: [{ id: job.id, role: 'user', content: `load ${job.id}` }] }),
      };
    },
    onResponse: (status, body, context, headers) => {
      const job = (context as Record<string, AppendJob>)[slot] as AppendJob;
      inflight.delete(job.id);
      const version = etagVersion(headers as Record<string, unknown>);
      // Versions only grow: an answer that arrives late must not take the known version back.
      if (version !== undefined && version > (versions.get(job.session) ?? 0)) versions.set(job.session, version);
      check('append', [200, 412], status, body);
      if (status === 200) setOf(acked, job.session).add(job.id);
      else {
        if (status === 412) stale += 1;
        retries.push(job);
      }
    },
  });

  const cycle: autocannon.Request[] = [
    append('first'),
    {
      method: 'GET',
      setupRequest: (request) => ({
        ...request,
        path: `/sessions/${pick(plan.sessions)}/messages?limit=5`,
        headers: auth,
      }),
      onResponse: (status, body) => check('tail', [200], status, body),
    },
    append('second'),
    {
      method: 'GET',
      setupRequest: (request) => ({ ...request, path: '/sessions?limit=20', headers: auth }),
      onResponse: (status, body) => check('list', [200], status, body),
    },
    {
      method: 'GET',
      // The other tenant's session by its own id, and by the name the store keeps it under.
      setupRequest: (request) => {
        const id = pick(plan.victim.sessions);
        return { ...request, path: `/sessions/${pick([id, `tenant-b.${id}`])}/messages?limit=1`, headers: auth };
      },
      onResponse: (status, body) => check('probe', [400, 404], status, body),
    },
  ];
  const turnSessions = plan.turns?.sessions;
  if (turnSessions !== undefined && turnSessions.length > 0)
    cycle.push({
      method: 'POST',
      setupRequest: (request) => ({
        ...request,
        path: `/sessions/${pick(turnSessions)}/turns`,
        headers: json,
        body: JSON.stringify({ input: [{ id: `${plan.runId}-turn-${next++}`, role: 'user', content: 'Where next?' }] }),
      }),
      onResponse: (status, body) => {
        // The first turn creates its session (201). Two turns on one session through two servers at
        // once: the later commit is refused (409) and stores nothing.
        check('turn', [200, 201, 409], status, body);
        if (status === 200 || status === 201) turns += 1;
      },
    });

  const results = await Promise.all(
    plan.servers.map((url) =>
      autocannon({
        url,
        connections: plan.connectionsPerServer,
        ...(plan.requestsPerServer === undefined
          ? { duration: plan.durationSeconds ?? 10 }
          : { amount: plan.requestsPerServer }),
        requests: cycle,
        timeout: 20,
        skipAggregateResult: true,
      }),
    ),
  );
  const total = aggregateResult(results, { url: plan.servers[0] as string });
  const seconds = Math.max(...results.map((result) => result.duration));
  const unknown = new Map<string, Set<string>>();
  for (const job of inflight.values()) setOf(unknown, job.session).add(job.id);
  return {
    runId: plan.runId,
    requests: total.requests.total,
    seconds,
    perSecond: total.requests.total / seconds,
    latencyP50Ms: total.latency.p50,
    latencyP99Ms: total.latency.p99,
    acknowledged: [...acked.values()].reduce((sum, ids) => sum + ids.size, 0),
    stale,
    turns,
    errors: total.errors,
    crossTenantReads,
    unexpected,
    acked,
    unknown,
    sent,
  };
}

/**
 * What is wrong with the stored sessions after `outcome`: every acknowledged append there exactly
 * once, seqs 1..n without a gap, nothing stored that was not sent, and an append refused (and
 * never acknowledged) absent — unless its answer never came. `read` gives a session's message ids
 * and seqs, oldest first.
 */
export async function exactlyOnceProblems(
  outcome: LoadOutcome,
  read: (session: string) => Promise<ReadonlyArray<{ readonly id: string; readonly seq?: number }>>,
  sessions: readonly string[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const session of sessions) {
    const stored = await read(session);
    const ids = stored.map((message) => message.id);
    const seqs = stored.map((message) => message.seq);
    if (seqs.some((seq, index) => seq !== index + 1)) problems.push(`${session}: seqs are not 1..${stored.length}`);
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) problems.push(`${session}: ${id} is stored twice`);
      seen.add(id);
    }
    const acked = outcome.acked.get(session) ?? new Set<string>();
    const unknown = outcome.unknown.get(session) ?? new Set<string>();
    const sent = outcome.sent.get(session) ?? new Set<string>();
    for (const id of acked) if (!seen.has(id)) problems.push(`${session}: acknowledged ${id} is missing`);
    for (const id of seen) {
      // Messages from before the run are not the run's to judge.
      if (!id.startsWith(`${outcome.runId}-`)) continue;
      if (!sent.has(id)) problems.push(`${session}: ${id} was never sent`);
      else if (!acked.has(id) && !unknown.has(id)) problems.push(`${session}: ${id} was refused, yet stored`);
    }
  }
  return problems;
}
