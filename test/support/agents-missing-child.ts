/**
 * Child process of the agents config tests: hides the packages named in `HIDE` (comma-separated)
 * from module resolution, as if they were not installed, then loads the agents config given and
 * prints what it gave (the agents' ids and providers) or what was thrown, as JSON.
 *
 * Usage: HIDE=openai node --import tsx agents-missing-child.ts <config>
 */
import { register } from 'node:module';

const hidden = (process.env.HIDE ?? '').split(',').filter((name) => name !== '');
// Hooks registered later run first, so this one answers before tsx's resolver does.
const hook = `const hidden = ${JSON.stringify(hidden)};
export async function resolve(specifier, context, next) {
  if (hidden.includes(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "' imported from " + context.parentURL);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const { loadAgents } = await import('../../src/server/agents/load-agents.js');
try {
  const loaded = await loadAgents(process.argv[2] ?? '', {
    env: { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' },
  });
  process.stdout.write(JSON.stringify({ agents: loaded.agents.map((agent) => [agent.id, agent.model.provider]) }));
} catch (error) {
  const { name, code, message, details } = error as {
    name?: string;
    code?: string;
    message?: string;
    details?: unknown;
  };
  process.stdout.write(JSON.stringify({ name, code, message, details }));
}
