/**
 * How a command module is written: `defineCommand` names it and configures it on commander (its
 * arguments, options, description and an example for `--help`), and `action` runs its handler with
 * a `CliContext`, closing the stores it opened and turning its result into the exit code.
 * @module
 */
import type { Command } from 'commander';
import { CliContext, type GlobalOptions } from './context.js';
import { EXIT } from './exit-codes.js';
import type { CliIo } from './io.js';

/** One `chatstate` subcommand. */
export interface CliCommand {
  /** The name typed after `chatstate`. */
  readonly name: string;
  /** Declares the command's arguments, options, description, examples and action on `command` (already named). */
  readonly configure: (command: Command) => void;
}

/** A command's handler: its positional arguments and options; returns the exit code (0 when nothing is returned). */
export type Handler<Options> = (context: CliContext, args: string[], options: Options) => Promise<number | void>;

/** The run a program belongs to: its streams and the exit code its command set. */
export interface RunState {
  readonly io: CliIo;
  exitCode: number;
}

const runs = new WeakMap<Command, RunState>();

/** Ties a program (the root command) to a run. */
export function attachRun(program: Command, state: RunState): void {
  runs.set(program, state);
}

function runOf(command: Command): RunState {
  let root = command;
  while (root.parent !== null) root = root.parent;
  const state = runs.get(root);
  if (state === undefined) throw new Error('chatstate CLI: a command ran outside of a program made by createProgram');
  return state;
}

/** A command module: its name and how it is configured. */
export function defineCommand(name: string, configure: (command: Command) => void): CliCommand {
  return Object.freeze({ name, configure });
}

/** The help text after a command's options: its examples, one `$ chatstate …` line each. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ chatstate ${line}`).join('\n')}\n`;
}

/** The commander action of a handler: builds its context from the global options, runs it, closes its stores, sets the exit code. */
export function action<Options extends object>(handler: Handler<Options>): (...received: unknown[]) => Promise<void> {
  return async (...received: unknown[]) => {
    const command = received[received.length - 1] as Command;
    const options = received[received.length - 2] as Options;
    const args = received
      .slice(0, -2)
      .flatMap((value) => (Array.isArray(value) ? (value as string[]) : value === undefined ? [] : [value as string]));
    const state = runOf(command);
    const context = new CliContext(state.io, command.optsWithGlobals<GlobalOptions>());
    try {
      state.exitCode = (await handler(context, args, options)) ?? EXIT.ok;
    } finally {
      await context.close();
    }
  };
}
