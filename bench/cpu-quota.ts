/**
 * CPU quotas for bench processes, through the cgroup v1 `cpu` controller: a group of its own per
 * process, `cpu.cfs_quota_us` of each `cpu.cfs_period_us`, so that N processes of one kind get N
 * times one's CPU however many cores the machine has. Needs root and a writable
 * `/sys/fs/cgroup/cpu`; `cpuQuota` says why when there is none. Groups are removed afterwards
 * (their processes moved back to the root group first).
 * @module
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = '/sys/fs/cgroup/cpu';
const PERIOD_US = 100_000;

/** A cgroup with a CPU quota, holding the processes added to it. */
export interface CpuQuota {
  /** Share of one core the group's processes may use together (quota ÷ period). */
  readonly cores: number;
  /** Moves process `pid` (all its threads) into the group. */
  add(pid: number): void;
  /** Scheduler periods so far, and how many of them the quota throttled (`cpu.stat`). */
  throttled(): { readonly periods: number; readonly throttledPeriods: number };
  /** Moves its processes back to the root group and removes it. */
  remove(): void;
}

/** A group named `name` allowing `cores` of one core (0.25: a quarter), or why there can be none. */
export function cpuQuota(name: string, cores: number): CpuQuota | string {
  if (!existsSync(join(ROOT, 'cpu.cfs_quota_us'))) return `no cgroup v1 cpu controller at ${ROOT}`;
  const dir = join(ROOT, `chatstate-bench-${name}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
    writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(Math.round(cores * PERIOD_US)));
  } catch (error) {
    return `cannot make a cgroup at ${dir}: ${(error as Error).message}`;
  }
  const stat = (): Map<string, number> =>
    new Map(
      readFileSync(join(dir, 'cpu.stat'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => {
          const [key = '', value = '0'] = line.split(' ');
          return [key, Number(value)] as const;
        }),
    );
  return {
    cores,
    add(pid) {
      writeFileSync(join(dir, 'cgroup.procs'), String(pid));
    },
    throttled() {
      const values = stat();
      return { periods: values.get('nr_periods') ?? 0, throttledPeriods: values.get('nr_throttled') ?? 0 };
    },
    remove() {
      try {
        const pids = readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
        for (const pid of pids) {
          try {
            writeFileSync(join(ROOT, 'cgroup.procs'), pid);
          } catch {
            // The process exited meanwhile.
          }
        }
        rmdirSync(dir);
      } catch {
        // Already gone.
      }
    },
  };
}
