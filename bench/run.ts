/**
 * `npm run bench [-- suite…] [--out=FILE]`: runs the benchmark suites (all by default, or those named:
 * `tokens`, `compaction`, `safety`, `append`, `langgraph`, `reads`, `servers`, `decode`, `recall`, `turn`, `tracing`, `operations`, `http`, `load`, `scaling`, `web`, `context`; `stores` names the
 * last four), prints their tables, and writes them with the machine and the command to
 * bench/RESULTS.md. No figure is compared with a stored one: every ratio is measured against a
 * baseline run in the same process.
 * @module
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { runCompactionSafetyBench } from './compaction-safety.js';
import { runCompactionBench } from './compaction.js';
import { runContextBench } from './context.js';
import { REPORT_SEED } from './corpus.js';
import { runHttpApiBench } from './http-api.js';
import { runLoadBench } from './load.js';
import { formatMs, renderTable, timeOnceAsync, type SuiteReport } from './harness.js';
import { runMessageDecodeBench } from './message-decode.js';
import { runOperationsBench } from './operations.js';
import { runRecallBench } from './recall.js';
import { runScalingBench } from './scaling.js';
import { runStoreAppendBench } from './store-append.js';
import { stopBenchServers } from './store-fixtures.js';
import { runLangGraphBench } from './store-langgraph.js';
import { runStoreReadBench } from './store-reads.js';
import { runTailEditsBench } from './tail-edits.js';
import { runServerBench } from './store-servers.js';
import { runTokenBench } from './tokens.js';
import { runTracingBench } from './tracing.js';
import { runTurnBench } from './turn.js';
import { runWebBrowserBench } from './web-browser.js';

const SUITES: Readonly<Record<string, () => Promise<SuiteReport>>> = {
  tokens: runTokenBench,
  compaction: runCompactionBench,
  safety: runCompactionSafetyBench,
  append: runStoreAppendBench,
  langgraph: runLangGraphBench,
  reads: runStoreReadBench,
  servers: runServerBench,
  recall: runRecallBench,
  decode: runMessageDecodeBench,
  turn: runTurnBench,
  tracing: runTracingBench,
  operations: runOperationsBench,
  http: runHttpApiBench,
  load: runLoadBench,
  scaling: runScalingBench,
  web: runWebBrowserBench,
  context: runContextBench,
  'tail-edits': runTailEditsBench,
};

/** Names that stand for several suites. */
const GROUPS: Readonly<Record<string, readonly string[]>> = {
  stores: ['append', 'langgraph', 'reads', 'servers'],
};

function selectSuites(args: readonly string[]): string[] {
  const names = args.filter((arg) => !arg.startsWith('-')).flatMap((name) => GROUPS[name] ?? [name]);
  if (names.length === 0) return Object.keys(SUITES);
  const unknown = names.filter((name) => !(name in SUITES));
  if (unknown.length > 0) {
    console.error(
      `Unknown suite(s): ${unknown.join(', ')}. Suites: ${Object.keys(SUITES).join(', ')}; groups: ${Object.keys(GROUPS).join(', ')}.`,
    );
    process.exit(2);
  }
  return [...new Set(names)];
}

function render(
  reports: readonly SuiteReport[],
  command: string,
  elapsed: number,
  load: readonly number[],
  after: ReadonlyMap<string, number>,
): string {
  const cpu = cpus();
  const lines = [
    '# Benchmark results',
    '',
    `Command: \`${command}\``,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Node.js ${process.version} on ${process.platform}/${process.arch}`,
    `- CPU: ${cpu[0]?.model.trim() ?? 'unknown'} × ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
    `- Corpus: \`bench/corpus.ts\`, seed ${REPORT_SEED} (deterministic): system prompt, then user → assistant [tool calls → results]* → assistant turns of English prose, markdown with TypeScript/Python blocks, JSON tool arguments and JSON tool outputs; about 1 message in 5 is a tool result`,
    `- Total bench time: ${formatMs(elapsed)}`,
    // Timings on a shared machine mean little without how busy it was.
    `- Load average when the run started: ${load.map((value) => value.toFixed(2)).join(', ')} (1, 5, 15 min); 1-min load average after each suite: ${[...after].map(([name, value]) => `${name} ${value.toFixed(2)}`).join(', ')} (this run itself keeps about one core busy)`,
    '',
    'Every ratio compares functions measured in this same run (round-robin, median of the repetitions after warm-up runs), never a stored figure.',
  ];
  for (const report of reports) {
    lines.push('', `## ${report.title}`, '');
    for (const table of report.tables) lines.push(...renderTable(table), '');
    for (const note of report.notes) lines.push(`- ${note}`);
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const names = selectSuites(args);
  // --out=FILE writes the results there instead (a run at other sizes must not replace RESULTS.md).
  const out = args.find((arg) => arg.startsWith('--out='))?.slice('--out='.length);
  const command = args.length === 0 ? 'npm run bench' : `npm run bench -- ${args.join(' ')}`;
  const reports: SuiteReport[] = [];
  const load = loadavg();
  const after = new Map<string, number>();
  const elapsed = await timeOnceAsync(async () => {
    try {
      for (const name of names) {
        const suite = SUITES[name];
        if (suite === undefined) continue;
        console.error(`running ${name}…`);
        const report = await suite();
        after.set(name, loadavg()[0] ?? 0);
        reports.push(report);
        console.log(`\n## ${report.title}\n`);
        for (const table of report.tables) console.log(`${renderTable(table).join('\n')}\n`);
        for (const note of report.notes) console.log(`- ${note}`);
      }
    } finally {
      // The throwaway Postgres and Redis servers the store suites started.
      await stopBenchServers();
    }
  });
  const path = out ?? fileURLToPath(new URL('./RESULTS.md', import.meta.url));
  writeFileSync(path, render(reports, command, elapsed, load, after));
  console.log(`\nTotal ${formatMs(elapsed)}; wrote ${path}`);
}

await main();
