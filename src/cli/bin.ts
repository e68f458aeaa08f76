#!/usr/bin/env node
/**
 * Executable entry of the `chatstate` command: runs the CLI on the process's arguments and streams,
 * and sets the exit code.
 * @module
 */
import { run } from './main.js';

// A reader that stops early (`chatstate list | head`) closes the pipe: that is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await run(process.argv.slice(2));
