/**
 * `verifySessions`: reads every session (or those named) and checks what a store promises —
 * readable records (checksums, keys), seq and version order, the head agreeing with the session,
 * tool pairing, validity in every provider format, and recovery notices told.
 *
 * It reads through the store: the file store repairs what a read finds damaged (the damage is
 * reported as a problem of this run; the next run finds the session repaired).
 * @module
 */
import { ChatstateError, errorMessage, type ErrorCode } from '../errors.js';
import { formats, validate } from '../formats/index.js';
import { repairToolPairs } from '../interchange/repair.js';
import { PROVIDERS, type ProviderName } from '../message/schema.js';
import { noticesOf } from '../store/recovery.js';
import type { SessionStore, SessionSummary } from '../store/session-store-types.js';
import type { Session } from '../session/session.js';
import { readValues } from './bundle.js';
import type { DamageLog } from './damage.js';
import { mapOrdered } from './pool.js';
import { concurrencyOf, report, type LongRunOptions } from './progress.js';
import { selected, selectionOf } from './walk.js';

/** What a finding is about. */
export type VerifyCheck = 'read' | 'damage' | 'sequence' | 'head' | 'tool-pairing' | 'format' | 'recovery';

/** One thing verify found: a `problem` (exit non-zero) or a `notice` (a past repair, for the record). */
export interface VerifyFinding {
  readonly sessionId: string;
  readonly check: VerifyCheck;
  readonly severity: 'problem' | 'notice';
  /** An error code (`CORRUPT`, `WRONG_KEY`, …) or a rule name (`seq_order`, `missing_tool_result`, …). */
  readonly code: ErrorCode | string;
  readonly message: string;
  /** The provider format, for `format` findings. */
  readonly provider?: ProviderName;
}

/** The report of `verifySessions`. */
export interface VerifyReport {
  /** Sessions read. */
  readonly checked: number;
  /** Sessions with at least one problem. */
  readonly failed: number;
  /** Problems and notices found (the first `maxFindings`). */
  readonly findings: readonly VerifyFinding[];
  /** Findings left out of `findings` beyond `maxFindings`. */
  readonly omitted: number;
  /** True when no session had a problem. */
  readonly ok: boolean;
}

/** Options of `verifySessions`. */
export interface VerifyOptions extends LongRunOptions {
  readonly ids?: readonly string[];
  readonly all?: boolean;
  /** The provider formats to check. @default every provider */
  readonly providers?: readonly ProviderName[];
  /** Damage the store reports while verify reads (the file store's `onDamage`). */
  readonly damage?: DamageLog;
  /** Findings kept in the report (memory stays bounded). @default 1000 */
  readonly maxFindings?: number;
  /** Each finding as it is found (e.g. printed as a line). */
  readonly onFinding?: (finding: VerifyFinding) => void;
}

type Finding = Omit<VerifyFinding, 'sessionId'>;

function problem(check: VerifyCheck, code: string, message: string, provider?: ProviderName): Finding {
  return { check, severity: 'problem', code, message, ...(provider === undefined ? {} : { provider }) };
}

/** Seq numbers ascending from 1, and a version at least 1. */
function sequenceFindings(session: Session): Finding[] {
  const found: Finding[] = [];
  if (!(session.version >= 1))
    found.push(problem('sequence', 'version_order', `version ${session.version} is below 1`));
  let previous = 0;
  session.messages.forEach((message, index) => {
    const seq = message.seq;
    if (seq === undefined || !(seq > previous))
      found.push(
        problem(
          'sequence',
          'seq_order',
          `message ${index} (${message.id}) has seq ${String(seq)} after ${previous}: sequence numbers must grow`,
        ),
      );
    if (seq !== undefined) previous = Math.max(previous, seq);
  });
  return found;
}

/** The head (`list`'s row) agrees with the session read. */
function headFindings(session: Session, summary: SessionSummary | undefined): Finding[] {
  if (summary === undefined) return [];
  const found: Finding[] = [];
  if (summary.version !== session.version)
    found.push(
      problem(
        'head',
        'head_version',
        `the index says version ${summary.version}, the session is at ${session.version}`,
      ),
    );
  if (summary.messageCount !== session.messages.length)
    found.push(
      problem(
        'head',
        'head_count',
        `the index says ${summary.messageCount} messages, the session has ${session.messages.length}`,
      ),
    );
  return found;
}

/** Recovery notices: each one the head keeps is told in the metadata and by its message; losses lie below the session's version and seqs. */
function recoveryFindings(session: Session, summary: SessionSummary | undefined): Finding[] {
  const found: Finding[] = [];
  const listed = noticesOf(session.metadata);
  const listedIds = new Set(listed.map((notice) => notice.id));
  const messageIds = new Set(session.messages.map((message) => message.id));
  for (const notice of summary?.recovery ?? []) {
    if (!listedIds.has(notice.id))
      found.push(
        problem('recovery', 'notice_unlisted', `recovery notice ${notice.id} is not in the session's metadata`),
      );
  }
  for (const notice of listed) {
    found.push({
      check: 'recovery',
      severity: 'notice',
      code: notice.kind,
      message: `repaired ${notice.at}: ${notice.reason}${notice.lost === undefined ? '' : ` (lost seq ${notice.lost.fromSeq}–${notice.lost.toSeq}, versions ${notice.lost.fromVersion}–${notice.lost.toVersion})`}`,
    });
    if (!messageIds.has(notice.id))
      found.push(problem('recovery', 'notice_untold', `recovery notice ${notice.id} has no message in the session`));
    if (notice.lost !== undefined && session.version <= notice.lost.toVersion)
      found.push(
        problem(
          'recovery',
          'version_reused',
          `version ${session.version} is not above the lost versions (up to ${notice.lost.toVersion})`,
        ),
      );
  }
  return found;
}

/** Calls answered and results paired, as a session must keep them (a repair `repairToolPairs` would make is a problem). */
function pairingFindings(session: Session): Finding[] {
  return repairToolPairs(session.messages).repairs.map((repair) =>
    problem('tool-pairing', repair.kind, repair.message),
  );
}

/** The session's history in each provider's format passes that provider's rules. */
function formatFindings(session: Session, providers: readonly ProviderName[]): Finding[] {
  const found: Finding[] = [];
  for (const provider of providers) {
    try {
      const { warnings: _warnings, ...wire } = formats[provider].to(session.messages);
      for (const each of validate(provider, wire))
        found.push(problem('format', each.code, `${each.path}: ${each.message}`, provider));
    } catch (error) {
      found.push(
        problem('format', ChatstateError.isInstance(error) ? error.code : 'INTERNAL', errorMessage(error), provider),
      );
    }
  }
  return found;
}

/** Every check of one session. */
async function verifyOne(
  store: SessionStore,
  id: string,
  summary: SessionSummary | undefined,
  options: VerifyOptions & { readonly named: boolean },
  providers: readonly ProviderName[],
): Promise<Finding[]> {
  const found: Finding[] = [];
  let session: Session | undefined;
  try {
    session = await store.get(id);
    if (session !== undefined) await readValues(store, session);
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    // A session written before key checks existed has none: its records tell only that they do not open.
    const hint =
      error.code === 'CORRUPT' && /authentication/.test(error.message) ? ' (or sealed with a key not given)' : '';
    found.push(problem('read', error.code, `${errorMessage(error)}${hint}`));
  }
  for (const damage of options.damage?.take(id) ?? [])
    found.push(
      problem(
        'damage',
        damage.kind,
        `${damage.reason}; repaired by this read${damage.keptAside.length === 0 ? '' : `, damaged files kept in ${damage.keptAside.join(', ')}`}`,
      ),
    );
  if (session === undefined) {
    if (found.length === 0 && options.named) found.push(problem('read', 'NOT_FOUND', `no session ${id}`));
    return found;
  }
  // The row `list` gave was read before this read repaired anything: read it again when it disagrees.
  let head = summary ?? (await store.summary(id));
  if (head !== undefined && (head.version !== session.version || head.messageCount !== session.messages.length))
    head = await store.summary(id);
  found.push(
    ...sequenceFindings(session),
    ...headFindings(session, head),
    ...recoveryFindings(session, head),
    ...pairingFindings(session),
    ...formatFindings(session, providers),
  );
  return found;
}

/** Checks the sessions selected and reports what it found; `ok` is false when any session has a problem. */
export async function verifySessions(store: SessionStore, options: VerifyOptions = {}): Promise<VerifyReport> {
  const selection = selectionOf(options.ids === undefined || options.ids.length === 0 ? { all: true } : options);
  const providers = options.providers ?? PROVIDERS;
  const maxFindings = options.maxFindings ?? 1000;
  const findings: VerifyFinding[] = [];
  let omitted = 0;
  let checked = 0;
  let failed = 0;
  const results = mapOrdered(
    selected(store, selection, options.signal),
    concurrencyOf(options.concurrency),
    async ({ id, summary }) => ({
      id,
      found: await verifyOne(store, id, summary, { ...options, named: 'ids' in selection }, providers),
    }),
    options.signal,
  );
  for await (const { id, found } of results) {
    checked += 1;
    if (found.some((each) => each.severity === 'problem')) failed += 1;
    for (const each of found) {
      const finding = { sessionId: id, ...each };
      try {
        options.onFinding?.(finding);
      } catch {
        // A listener is for display only.
      }
      if (findings.length < maxFindings) findings.push(finding);
      else omitted += 1;
    }
    report(options.onProgress, {
      done: checked,
      failed,
      ...(options.total === undefined ? {} : { total: options.total }),
    });
  }
  return { checked, failed, findings, omitted, ok: failed === 0 };
}
