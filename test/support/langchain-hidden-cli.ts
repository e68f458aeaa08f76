/**
 * Child process of the CLI's LangGraph tests: hides every `@langchain/*` package from module
 * resolution, as if none were installed (they are optional peers), then runs `chatstate` with
 * the arguments given and prints `{ code, stdout, stderr }` as JSON.
 *
 * Usage: node --import tsx langchain-hidden-cli.ts show ID --store URL
 */
import { register } from 'node:module';
import { Writable } from 'node:stream';

// Hooks registered later run first, so this one answers before tsx's resolver does.
const hook = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@langchain/')) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

const { run } = await import('../../src/cli/main.js');
const stdout = collector();
const stderr = collector();
const code = await run(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: stdout.stream,
  stderr: stderr.stream,
  env: { ...process.env, NO_COLOR: '1' },
});
process.stdout.write(JSON.stringify({ code, stdout: stdout.text(), stderr: stderr.text() }));
