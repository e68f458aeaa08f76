/**
 * Tool calls and tool outputs of the benchmark corpus: the JSON arguments a model writes (compact,
 * sometimes with code inside a string) and the JSON a tool returns (records, file listings, search
 * results, command output), pretty-printed or compact as real tools do.
 * @module
 */
import {
  codeBlock,
  filePath,
  identifier,
  paragraph,
  python,
  sentence,
  typescript,
  type Segment,
} from './corpus-text.js';
import type { Random } from './random.js';
import { CITIES, CONTENT_WORDS, DOMAINS, EXTENSIONS, FOLDERS, NAMES, STATUSES, SURNAMES } from './words.js';

/** A generated tool call: name, JSON arguments text, and the JSON output its tool returns. */
export interface GeneratedToolCall {
  readonly name: string;
  readonly arguments: string;
  readonly output: string;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';

function uuid(random: Random): string {
  return `${random.chars(8, HEX)}-${random.chars(4, HEX)}-4${random.chars(3, HEX)}-a${random.chars(3, HEX)}-${random.chars(12, HEX)}`;
}

/** A provider-style tool call id (`call_…`). */
export function toolCallId(random: Random): string {
  return `call_${random.chars(24, BASE62)}`;
}

function isoDate(random: Random): string {
  const day = new Date(Date.UTC(2024, 0, 1) + random.int(0, 700) * 86_400_000 + random.int(0, 86_399) * 1000);
  return day.toISOString();
}

function url(random: Random): string {
  return `https://${random.pick(DOMAINS)}/${random.pick(CONTENT_WORDS)}/${identifier(random, 'snake').replaceAll('_', '-')}`;
}

function record(random: Random, id: number): Json {
  const first = random.pick(NAMES);
  const last = random.pick(SURNAMES);
  const value: { [key: string]: Json } = {
    // Many APIs use opaque string ids (Stripe-style), which tokenize poorly.
    id: random.chance(0.3) ? `${random.pick(['cus', 'usr', 'ord', 'inv'])}_${random.chars(14, BASE62)}` : id,
    name: `${first} ${last}`,
    email: `${first.toLowerCase()}.${last.toLowerCase()}@${random.pick(DOMAINS)}`,
    status: random.pick(STATUSES),
    created_at: isoDate(random),
  };
  if (random.chance(0.6)) value.amount = Math.round(random.next() * 1_000_000) / 100;
  if (random.chance(0.5)) value.city = random.pick(CITIES);
  if (random.chance(0.4)) value.tags = [random.pick(CONTENT_WORDS), random.pick(CONTENT_WORDS)];
  if (random.chance(0.3)) value.verified = random.chance(0.5);
  if (random.chance(0.2)) value.manager_id = random.chance(0.3) ? null : random.int(1, 500);
  return value;
}

function fileEntry(random: Random): Json {
  const isDir = random.chance(0.2);
  const name = isDir
    ? random.pick(FOLDERS)
    : `${identifier(random, 'snake').replaceAll('_', '-')}.${random.pick(EXTENSIONS)}`;
  return {
    name,
    type: isDir ? 'directory' : 'file',
    size: isDir ? 4096 : random.int(80, 90_000),
    modified: isoDate(random),
  };
}

function searchHit(random: Random): Json {
  return { title: sentence(random).slice(0, 70), url: url(random), snippet: paragraph(random, 1, 2).slice(0, 240) };
}

function codeHit(random: Random): Json {
  return {
    path: filePath(random),
    line: random.int(1, 900),
    text: `  const ${identifier(random)} = ${identifier(random)}(${identifier(random)});`,
  };
}

function serialize(random: Random, value: Json): string {
  // Tools print JSON both ways; pretty-printed output costs many more whitespace tokens.
  return random.chance(0.5) ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

function array<T extends Json>(random: Random, min: number, max: number, make: (index: number) => T): T[] {
  const items: T[] = [];
  for (let i = random.int(min, max); i > 0; i--) items.push(make(items.length));
  return items;
}

/** One tool call with arguments and its output. */
export function toolCall(random: Random): GeneratedToolCall {
  const call = (name: string, args: Json, output: Json): GeneratedToolCall => ({
    name,
    // Models emit compact arguments; a few clients re-serialize them with spaces.
    arguments: random.chance(0.85) ? JSON.stringify(args) : JSON.stringify(args, null, 1),
    output: serialize(random, output),
  });
  switch (random.int(0, 8)) {
    case 0: {
      const path = filePath(random, random.chance(0.7) ? 'ts' : 'py');
      const content = array(random, 2, 6, () => (path.endsWith('.py') ? python(random) : typescript(random))).join(
        '\n\n',
      );
      return call('read_file', { path }, { path, content, lines: content.split('\n').length });
    }
    case 1: {
      const content = random.chance(0.6) ? typescript(random) : python(random);
      return call('write_file', { path: filePath(random), content }, { ok: true, bytes_written: content.length });
    }
    case 2:
      return call(
        'search_code',
        { query: identifier(random), path: random.pick(FOLDERS), max_results: random.pick([10, 20, 50]) },
        { total: random.int(1, 200), matches: array(random, 2, 40, () => codeHit(random)) },
      );
    case 3:
      return call(
        'list_directory',
        { path: random.pick(FOLDERS), recursive: random.chance(0.3) },
        array(random, 3, 40, () => fileEntry(random)),
      );
    case 4:
      return call(
        'web_search',
        {
          query: `${random.pick(CONTENT_WORDS)} ${random.pick(CONTENT_WORDS)} ${random.pick(CONTENT_WORDS)}`,
          num_results: random.pick([3, 5, 10]),
        },
        { results: array(random, 3, 10, () => searchHit(random)) },
      );
    case 5: {
      const table = random.pick(['users', 'orders', 'customers', 'accounts']);
      const limit = random.pick([5, 10, 20, 50]);
      return call(
        'query_database',
        {
          sql: `SELECT * FROM ${table} WHERE status = '${random.pick(STATUSES)}' ORDER BY created_at DESC LIMIT ${limit}`,
        },
        {
          rows: array(random, 1, Math.min(limit, 40), (index) => record(random, 1000 + index * random.int(1, 9))),
          row_count: limit,
        },
      );
    }
    case 6: {
      const command = random.pick([
        'npm test',
        'npm run build',
        'git log --oneline',
        'pytest -q',
        'ls -la',
        'tsc --noEmit',
      ]);
      const line = (): string =>
        command === 'git log --oneline'
          ? `${random.chars(7, HEX)} ${sentence(random)}`
          : `${random.pick(['✓', 'PASS', 'ok', 'M', '-rw-r--r--'])} ${filePath(random)} ${random.int(1, 999)}ms`;
      const stdout = array(random, 1, 30, line).join('\n');
      return call(
        'run_command',
        { command, cwd: '/workspace' },
        { exit_code: random.chance(0.8) ? 0 : 1, stdout, stderr: random.chance(0.8) ? '' : sentence(random) },
      );
    }
    case 7:
      return call(
        'http_request',
        { method: random.pick(['GET', 'POST']), url: url(random), headers: { accept: 'application/json' } },
        {
          status: 200,
          headers: { 'content-type': 'application/json', 'x-request-id': uuid(random) },
          body: { data: array(random, 1, 12, (index) => record(random, index + 1)) },
        },
      );
    default:
      return call(
        'get_weather',
        { city: random.pick(CITIES), units: random.pick(['metric', 'imperial']) },
        {
          city: random.pick(CITIES),
          temperature: random.int(-10, 38),
          conditions: random.pick(['clear', 'cloudy', 'rain', 'snow']),
          forecast: array(random, 3, 7, () => ({
            date: isoDate(random).slice(0, 10),
            high: random.int(0, 40),
            low: random.int(-15, 20),
          })),
        },
      );
  }
}

/** Text an assistant writes before calling tools (often nothing). */
export function preamble(random: Random): Segment[] {
  const roll = random.next();
  if (roll < 0.5) return [];
  if (roll < 0.9) return [{ kind: 'prose', text: sentence(random) }];
  return [
    { kind: 'prose', text: sentence(random) },
    { kind: 'code', text: `\n\n${codeBlock(random)}` },
  ];
}
