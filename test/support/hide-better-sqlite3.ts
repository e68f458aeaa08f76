/**
 * Imported first by a child process: hides `better-sqlite3` from module resolution, as if it were
 * not installed, so the missing-dependency tests see what a user without it sees.
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
