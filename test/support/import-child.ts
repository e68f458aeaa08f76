/**
 * Child process of the module-loading tests: hides packages from module resolution (as if they
 * were not installed), records every module URL it resolves, imports one module, optionally opens
 * a store URL with the `openStore` it exports (and lists it once), and prints what happened as JSON.
 *
 * Usage: node --import tsx import-child.ts '<json ImportPlan>'
 */
import { register } from 'node:module';

/** What the child does. */
export interface ImportPlan {
  /** Package names that fail to resolve with ERR_MODULE_NOT_FOUND. */
  readonly hide: readonly string[];
  /** File that receives every resolved module URL, one a line. */
  readonly trace: string;
  /** The module to import (a file: URL). */
  readonly target: string;
  /** A store URL to open with the target's `openStore`, then close. */
  readonly open?: string;
}

/** What the child prints. */
export interface ImportOutcome {
  readonly imported: boolean;
  readonly opened?: string;
  readonly error?: { readonly name?: string; readonly code?: string; readonly message?: string };
}

// Hooks registered later run first: this one answers before tsx's resolver for a hidden package,
// and records the URL every other specifier resolves to.
const HOOK = `import { appendFileSync } from 'node:fs';
let plan;
export function initialize(data) { plan = data; }
export async function resolve(specifier, context, next) {
  if (plan.hide.includes(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  const resolved = await next(specifier, context);
  appendFileSync(plan.trace, resolved.url + '\\n');
  return resolved;
}`;

const plan = JSON.parse(process.argv[2] ?? '{}') as ImportPlan;
register(`data:text/javascript,${encodeURIComponent(HOOK)}`, { data: { hide: plan.hide, trace: plan.trace } });

let outcome: ImportOutcome;
try {
  const module = (await import(plan.target)) as {
    openStore?: (url: string) => Promise<{ name: string; list(): Promise<unknown>; close(): Promise<void> }>;
  };
  outcome = { imported: true };
  if (plan.open !== undefined && module.openStore !== undefined) {
    const store = await module.openStore(plan.open);
    outcome = { imported: true, opened: store.name };
    // One operation: a store loads its driver's code on its first.
    await store.list();
    await store.close();
  }
} catch (error) {
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  outcome = { imported: false, error: { name, code, message } };
}
process.stdout.write(JSON.stringify(outcome));
