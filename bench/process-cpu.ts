/**
 * CPU time of processes, read from /proc (Linux): what the many-server benches report per process.
 * @module
 */
import { readFileSync } from 'node:fs';

/** CPU seconds (user + system) process `pid` has used, from /proc; undefined elsewhere or once it is gone. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by each of `pids`. */
export function cpuOf(pids: readonly number[]): Map<number, number> {
  return new Map(pids.map((pid) => [pid, cpuSeconds(pid) ?? 0]));
}

/** CPU seconds `pids` used since `before` (a process that started since counts from 0, one that ended is left out). */
export function cpuSince(before: ReadonlyMap<number, number>, pids: readonly number[]): number {
  let total = 0;
  for (const [pid, seconds] of cpuOf(pids)) if (seconds > 0) total += seconds - (before.get(pid) ?? 0);
  return total;
}
