/**
 * The official model clients, loaded only when a configured agent uses one: they are optional
 * peer dependencies, and a server without agents (or with other providers) never loads them.
 * @module
 */
import { InvalidInputError } from '../../errors.js';

/** The optional packages an agents config can need. */
export type SdkPackage = 'openai' | '@anthropic-ai/sdk' | 'ai' | '@ai-sdk/openai';

/** True when `error` says that `name` itself (not something it imports) is not installed. */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`"${name}"`));
}

/**
 * The module `name`, loaded by `load` (an `import()` of that literal specifier, so bundlers see
 * it); `MISSING_DEPENDENCY` naming the package and `needed` (what needs it) when it is not installed.
 */
export async function importSdk<T>(name: SdkPackage, needed: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissing(error, name)) throw error;
    throw new InvalidInputError('MISSING_DEPENDENCY', `${needed} needs the package ${name}: npm install ${name}`, {
      cause: error,
      details: { packages: [name] },
    });
  }
}
