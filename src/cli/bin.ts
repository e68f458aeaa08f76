#!/usr/bin/env node
/**
 * Executable entry of the `chatstate` command: runs `main` and maps errors to exit codes.
 * @module
 */
import { ChatstateError, errorMessage } from '../errors.js';
import { main } from './main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const code = ChatstateError.isInstance(error) ? error.code : 'ERROR';
    console.error(`chatstate: ${code}: ${errorMessage(error)}`);
    process.exitCode = 1;
  },
);
