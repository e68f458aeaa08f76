/**
 * Progress of long work (verify, migrate, import, export --all, compact --all): a bar with count,
 * rate and ETA on a terminal's stderr (cli-progress), nothing when stderr is piped or with `--quiet`.
 * @module
 */
import { styleText } from 'node:util';
import cliProgress from 'cli-progress';
import { UNCHECKED, colorsAllowed, isTerminal, type CliIo } from './io.js';

/** A progress indicator; every method is a no-op when progress is not shown. */
export interface Progress {
  /** Adds `count` done items (and optionally raises the total). */
  increment(count?: number): void;
  /** Sets the total once it is known (`undefined`: unknown, no bar, only count and rate). */
  setTotal(total: number): void;
  /** Removes the bar; call it before printing a result. */
  stop(): void;
}

const SILENT: Progress = Object.freeze({ increment() {}, setTotal() {}, stop() {} });

/** Options of `startProgress`. */
export interface ProgressOptions {
  /** What is counted (`sessions`, `messages`). */
  readonly label: string;
  /** Items to do, when known. */
  readonly total?: number;
  /** Silence it (`--quiet`). */
  readonly quiet: boolean;
}

/** Starts a progress indicator on stderr when it is a terminal and `quiet` is not set. */
export function startProgress(io: CliIo, options: ProgressOptions): Progress {
  if (options.quiet || !isTerminal(io.stderr)) return SILENT;
  const started = Date.now();
  const label = options.label;
  const color = colorsAllowed(io.stderr, io.env);
  let known = options.total !== undefined;
  // Our own format: a rate since the start (cli-progress gives only the ETA), no bar while the total is unknown.
  const format: cliProgress.GenericFormatter = (settings, params) => {
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    const rate = params.value / seconds;
    const rateText = `${rate >= 100 ? Math.round(rate) : rate.toFixed(1)} ${label}/s`;
    if (!known) return `${params.value} ${label} · ${rateText}`;
    const size = settings.barsize ?? 30;
    const filled = Math.min(size, Math.round(params.progress * size));
    const barText = `${'█'.repeat(filled)}${'░'.repeat(size - filled)}`;
    const eta = Number.isFinite(params.eta) && params.value > 0 ? `ETA ${formatSeconds(params.eta)}` : 'ETA …';
    const shown = color ? styleText('cyan', barText, UNCHECKED) : barText;
    return `${shown} ${Math.floor(params.progress * 100)}% ${params.value}/${params.total} ${label} · ${rateText} · ${eta}`;
  };
  const bar = new cliProgress.SingleBar({
    stream: io.stderr,
    format,
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 50,
    fps: 10,
    barsize: 30,
  });
  bar.start(options.total ?? 0, 0);
  return {
    increment(count = 1) {
      bar.increment(count);
    },
    setTotal(total) {
      known = true;
      bar.setTotal(total);
    },
    stop() {
      bar.stop();
    },
  };
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
