/**
 * A long-lived process that runs the `chatstate` command again and again: the test process sends
 * `{ id, args, env, input, cwd }` over IPC, this process runs `run(args, io)` of `src/cli/main.ts`
 * (started with tsx, so no build is needed) with that environment, stdin and working directory,
 * and answers `{ id, code, stdout, stderr }`. One command at a time (the working directory is
 * process-wide).
 *
 * It saves a Node start and the CLI's module loading per case (about half a second each), which
 * is most of what a CLI test spends; the built bin itself (`bin.ts`: EPIPE, the process's exit
 * code) is tested by spawning it.
 * @module
 */
import { Readable, Writable } from 'node:stream';

const { run } = await import(new URL('../../src/cli/main.ts', import.meta.url).href);

/** A writable stream that keeps what is written to it, as a pipe would deliver it. */
function collector() {
  const chunks = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

let queue = Promise.resolve();

process.on('message', (request) => {
  queue = queue.then(async () => {
    const stdout = collector();
    const stderr = collector();
    const stdin = Readable.from(request.input === '' ? [] : [Buffer.from(request.input, 'utf8')]);
    let code;
    try {
      process.chdir(request.cwd);
      code = await run(request.args, { stdin, stdout: stdout.stream, stderr: stderr.stream, env: request.env });
    } catch (error) {
      // `run` reports every error itself: one reaching here is a bug the test must see.
      process.send({ id: request.id, crash: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      return;
    }
    process.send({ id: request.id, code, stdout: stdout.text(), stderr: stderr.text() });
  });
});

// The test process is gone: so is this host.
process.on('disconnect', () => process.exit(0));
process.send({ ready: true });
