/**
 * Child process of the missing-dependency test: hides `better-sqlite3` from module resolution, as
 * if it were not installed, then opens a `sqlite:` store and prints what was thrown as JSON.
 *
 * Usage: node --import tsx sqlite-missing-child.ts <file>
 */
import { register } from 'node:module';

// Hooks registered later run first, so this one answers before tsx's resolver does.
const hook = `export async function resolve(specifier, context, next) {
  if (specifier === 'better-sqlite3') {
    const error = new Error("Cannot find package 'better-sqlite3'");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const { openStore } = await import('../../src/stores/open-store.js');
try {
  await openStore(`sqlite:${process.argv[2] ?? ''}`);
  process.stdout.write(JSON.stringify({ opened: true }));
} catch (error) {
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  process.stdout.write(JSON.stringify({ name, code, message }));
}
