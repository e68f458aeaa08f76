/**
 * What commands print: records as a table on a terminal (plain aligned text when piped) or as JSON
 * lines with `--json`, notes and warnings on stderr, colors only on a terminal without `NO_COLOR`.
 * Writes wait for the stream to drain, so a long listing streams with bounded memory.
 * @module
 */
import { once } from 'node:events';
import { styleText } from 'node:util';
import { UNCHECKED, colorsAllowed, type CliIo, type OutputStream } from './io.js';

/** A style `Output.style` applies. */
export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan' | 'magenta';

/** A column of a streamed table. */
export interface Column<T> {
  /** Header text. */
  readonly header: string;
  /** Width in characters; longer cells are cut with `…`. The last column is never cut. */
  readonly width: number;
  /** The cell's text. */
  readonly value: (row: T) => string;
  /** Right-aligned (numbers). @default false */
  readonly alignRight?: boolean;
  /** The cell's style on a terminal. */
  readonly style?: (row: T) => Style | undefined;
}

/** Options of `Output`. */
export interface OutputOptions {
  /** JSON lines instead of text. */
  readonly json: boolean;
  /** No notes on stderr (warnings and errors still print). */
  readonly quiet: boolean;
}

function cut(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/** Printing for commands. */
export class Output {
  /** JSON lines are wanted (`--json`). */
  readonly json: boolean;
  /** Notes are silenced (`--quiet`). */
  readonly quiet: boolean;
  private readonly color: boolean;
  private readonly errorColor: boolean;

  constructor(
    private readonly io: CliIo,
    options: OutputOptions,
  ) {
    this.json = options.json;
    this.quiet = options.quiet;
    this.color = colorsAllowed(io.stdout, io.env);
    this.errorColor = colorsAllowed(io.stderr, io.env);
  }

  /** `text` styled when stdout takes colors. */
  style(style: Style | undefined, text: string): string {
    return this.color && style !== undefined && text.length > 0 ? styleText(style, text, UNCHECKED) : text;
  }

  /** Writes one line to stdout, waiting for the stream to drain. */
  async line(text: string): Promise<void> {
    await write(this.io.stdout, `${text}\n`);
  }

  /** Writes text to stdout as it is (a newline is added when missing). */
  async text(text: string): Promise<void> {
    await write(this.io.stdout, text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Writes one JSON line to stdout. */
  async record(value: unknown): Promise<void> {
    await this.line(JSON.stringify(value));
  }

  /** Writes pretty JSON to stdout (a single document, for `show`-like commands). */
  async document(value: unknown): Promise<void> {
    await this.line(JSON.stringify(value, null, 2));
  }

  /** A note for people on stderr (progress messages, what was done); silenced by `--quiet`. */
  note(text: string): void {
    if (!this.quiet) this.io.stderr.write(`${text}\n`);
  }

  /** A warning on stderr, always printed. */
  warn(text: string): void {
    const label = this.errorColor ? styleText('yellow', 'warning', UNCHECKED) : 'warning';
    this.io.stderr.write(`${label}: ${text}\n`);
  }

  /**
   * Streams rows: with `--json` each row is `toJson(row)` on a line; otherwise a header, then one
   * aligned line a row. Returns the number of rows written.
   */
  async table<T>(
    columns: ReadonlyArray<Column<T>>,
    rows: AsyncIterable<T> | Iterable<T>,
    toJson: (row: T) => unknown,
  ): Promise<number> {
    let count = 0;
    if (!this.json)
      await this.line(
        this.style(
          'bold',
          this.cells(columns, (column) => column.header),
        ),
      );
    for await (const row of rows) {
      count++;
      if (this.json) await this.record(toJson(row));
      else await this.line(this.cells(columns, (column) => column.value(row), row));
    }
    return count;
  }

  private cells<T>(columns: ReadonlyArray<Column<T>>, text: (column: Column<T>) => string, row?: T): string {
    return columns
      .map((column, index) => {
        const last = index === columns.length - 1;
        const value = last ? text(column) : cut(text(column), column.width);
        const padded = last
          ? value
          : column.alignRight === true
            ? value.padStart(column.width)
            : value.padEnd(column.width);
        return row === undefined ? padded : this.style(column.style?.(row), padded);
      })
      .join('  ')
      .trimEnd();
  }
}

/** Writes `chunk`, waiting for `drain` when the stream's buffer is full. */
export async function write(stream: OutputStream, chunk: string | Uint8Array): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}
