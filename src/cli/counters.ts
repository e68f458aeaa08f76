/**
 * Token counters by name for `--counter` (commander `choices` lists them on a bad name).
 * @module
 */
import { Option } from 'commander';
import { COUNTERS, counterNamed } from '../operations/compact.js';

export { counterNamed };

/** The `--counter NAME` option, `estimate` by default. */
export function counterOption(): Option {
  return new Option('--counter <name>', 'token counter').choices(Object.keys(COUNTERS)).default('estimate');
}
