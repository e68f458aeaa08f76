/**
 * Vocabulary of the benchmark corpus: common English words at roughly their spoken frequency,
 * the technical words agents talk about, and identifier parts for generated code.
 * @module
 */

/** Function words: about half of the words in English prose. */
export const FUNCTION_WORDS = (
  'the the the the of of of and and and to to to a a a in in is is it it that that for for you you ' +
  'with on as are be this was have or not can by from at we will if but an which your so all they ' +
  'when there should would could their what more about also then than them into only just its these ' +
  'some other how each both after before because while where does do has any most such may very'
).split(' ');

/** Content words of everyday and technical prose. */
export const CONTENT_WORDS = (
  'file function value error request response server client data user session message history ' +
  'token budget model tool call result output input test build change update version release ' +
  'problem issue question answer example approach option default setting configuration project ' +
  'code module package library dependency import export type interface object array string number ' +
  'list record field column table query index database cache memory storage process thread worker ' +
  'timeout retry limit size time performance latency throughput system network connection endpoint ' +
  'header status payload schema validation parser format document page section step case reason ' +
  'people team customer account order payment invoice product price report summary detail context ' +
  'first last next previous simple small large fast slow new old same different important possible ' +
  'correct wrong missing empty valid invalid current existing specific general common useful clear ' +
  'use make need want work run check find keep return handle create remove add read write send ' +
  'receive parse load save start stop call pass fail support expect include explain consider ' +
  'understand happen mean show try look help fix improve avoid ensure allow require provide ' +
  'usually probably actually already still often always never however instead simply directly ' +
  'quickly safely correctly automatically manually together otherwise especially'
).split(/\s+/);

/** Longer or rarer words that tokenizers split into several pieces. */
export const RARE_WORDS = (
  'idempotency serialization deserialization monotonic observability backpressure reconciliation ' +
  'nondeterministic eventual consistency linearizable memoization tokenizer quadratic amortized ' +
  'orchestration instrumentation heuristics middleware interceptor debounce throttling sharding ' +
  'Kubernetes PostgreSQL TypeScript JavaScript WebSocket OAuth GraphQL Redis nginx Dockerfile'
).split(/\s+/);

/** Parts of identifiers (camelCase, snake_case, PascalCase). */
export const IDENTIFIER_PARTS = (
  'user id name data item items list map key value count total index result response request ' +
  'config options state cache store entry record message messages token tokens limit budget path ' +
  'file dir url query params body headers status error errors handler callback event events ' +
  'session client server buffer chunk offset size len max min start end next prev parent child ' +
  'node tree queue task job worker pool retry timeout delay date time created updated deleted'
).split(/\s+/);

/** Given names for records and prose. */
export const NAMES =
  'Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor Walter'.split(
    ' ',
  );

/** Surnames for records. */
export const SURNAMES =
  'Smith Johnson Williams Brown Jones Garcia Miller Davis Martinez Lopez Wilson Anderson Thomas Taylor Moore'.split(
    ' ',
  );

/** Cities for records and search queries. */
export const CITIES =
  'London Paris Berlin Madrid Lisbon Tokyo Seoul Toronto Chicago Denver Austin Sydney Nairobi Lagos Lima'.split(' ');

/** Top-level folders of file paths. */
export const FOLDERS = 'src lib test tests docs scripts config packages app api components utils models services'.split(
  ' ',
);

/** File extensions by weight of appearance. */
export const EXTENSIONS = ['ts', 'ts', 'ts', 'tsx', 'js', 'json', 'md', 'py', 'py', 'yaml', 'css', 'sql'];

/** Status values of records. */
export const STATUSES = ['active', 'pending', 'inactive', 'archived', 'failed', 'completed', 'draft'];

/** Domains for urls and emails. */
export const DOMAINS = [
  'example.com',
  'docs.example.org',
  'github.com',
  'stackoverflow.com',
  'developer.mozilla.org',
  'acme.io',
];
