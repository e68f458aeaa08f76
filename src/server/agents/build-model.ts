/**
 * A declared model as a `ChatModel`: the official client of its provider, loaded when first
 * needed, made with the base URL and API key read from the environment variables the config
 * names, under the library's adapter for that client.
 * @module
 */
import type { InvalidInputError } from '../../errors.js';
import { aiSdkModel } from '../../models/ai-sdk.js';
import { anthropicModel } from '../../models/anthropic.js';
import { openaiChatModel } from '../../models/openai-chat.js';
import { openaiResponsesModel } from '../../models/openai-responses.js';
import type { ChatModel } from '../../models/types.js';
import type { ModelProvider, ModelSpec } from './config-schema.js';
import { importSdk } from './sdk.js';

/** Environment variables, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The error for a problem with `field` of the model (`undefined`: the model as a whole). */
export type ModelProblem = (
  field: string | undefined,
  message: string,
  details?: Readonly<Record<string, unknown>>,
) => InvalidInputError;

/** Where each provider's key and base URL come from by default, and the base URL when none is set. */
const CONNECTIONS: Readonly<Record<ModelProvider, { apiKeyEnv: string; baseUrlEnv: string; baseUrl: string }>> = {
  openaiChat: { apiKeyEnv: 'OPENAI_API_KEY', baseUrlEnv: 'OPENAI_BASE_URL', baseUrl: 'https://api.openai.com/v1' },
  openaiResponses: { apiKeyEnv: 'OPENAI_API_KEY', baseUrlEnv: 'OPENAI_BASE_URL', baseUrl: 'https://api.openai.com/v1' },
  aiSdk: { apiKeyEnv: 'OPENAI_API_KEY', baseUrlEnv: 'OPENAI_BASE_URL', baseUrl: 'https://api.openai.com/v1' },
  anthropic: { apiKeyEnv: 'ANTHROPIC_API_KEY', baseUrlEnv: 'ANTHROPIC_BASE_URL', baseUrl: 'https://api.anthropic.com' },
};

/** Anthropic requires an output limit on every call. */
const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** The API key and base URL of `spec`, read from `env`. */
interface Connection {
  readonly apiKey: string;
  readonly baseUrl: string;
}

/**
 * The key and base URL of `spec` from `env`. The key's variable must be set (an unset one is a
 * mistake found at start, not a 401 at the first turn); so must a base URL variable the config
 * names; the default one may be unset (the provider's own URL). Values are never put in messages.
 */
function connectionOf(spec: ModelSpec, env: Environment, problem: ModelProblem): Connection {
  const defaults = CONNECTIONS[spec.provider];
  const keyEnv = spec.apiKeyEnv ?? defaults.apiKeyEnv;
  const apiKey = env[keyEnv];
  if (apiKey === undefined || apiKey === '')
    throw problem(
      spec.apiKeyEnv === undefined ? undefined : 'apiKeyEnv',
      `the environment variable ${keyEnv} (the API key) is not set`,
      {
        env: keyEnv,
      },
    );
  const urlEnv = spec.baseUrlEnv ?? defaults.baseUrlEnv;
  const given = env[urlEnv];
  if (given === undefined || given === '') {
    if (spec.baseUrlEnv !== undefined)
      throw problem('baseUrlEnv', `the environment variable ${urlEnv} (the base URL) is not set`, { env: urlEnv });
    return { apiKey, baseUrl: defaults.baseUrl };
  }
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw problem(
      spec.baseUrlEnv === undefined ? undefined : 'baseUrlEnv',
      `the environment variable ${urlEnv} is not a URL`,
      {
        env: urlEnv,
      },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw problem(
      spec.baseUrlEnv === undefined ? undefined : 'baseUrlEnv',
      `the environment variable ${urlEnv} is not an http(s) URL`,
      {
        env: urlEnv,
      },
    );
  return { apiKey, baseUrl: given.replace(/\/+$/, '') };
}

/** A `fetch` that gives up after `ms` (the `ai` provider takes no timeout of its own). */
function fetchWithTimeout(ms: number): typeof fetch {
  return (input, init) => {
    const timeout = AbortSignal.timeout(ms);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    return fetch(input, { ...init, signal });
  };
}

/**
 * The `ChatModel` of `spec`: its client (loaded now; `MISSING_DEPENDENCY` naming the package when
 * it is not installed) with the key and base URL from `env`. `what` names the model in errors.
 */
export async function buildModel(
  spec: ModelSpec,
  env: Environment,
  what: string,
  problem: ModelProblem,
): Promise<ChatModel> {
  const { apiKey, baseUrl } = connectionOf(spec, env, problem);
  const settings = {
    ...(spec.maxOutputTokens === undefined ? {} : { maxOutputTokens: spec.maxOutputTokens }),
    ...(spec.temperature === undefined ? {} : { temperature: spec.temperature }),
  };
  const client = {
    apiKey,
    baseURL: baseUrl,
    ...(spec.maxRetries === undefined ? {} : { maxRetries: spec.maxRetries }),
    ...(spec.timeoutMs === undefined ? {} : { timeout: spec.timeoutMs }),
  };
  switch (spec.provider) {
    case 'openaiChat':
    case 'openaiResponses': {
      const { default: OpenaiClient } = await importSdk('openai', what, () => import('openai'));
      // Every option given: the client would otherwise read OPENAI_BASE_URL itself, not the variable the config names.
      const openai = new OpenaiClient(client);
      return spec.provider === 'openaiChat'
        ? openaiChatModel({ client: openai, model: spec.name, ...settings })
        : openaiResponsesModel({ client: openai, model: spec.name, ...settings });
    }
    case 'anthropic': {
      const { default: Anthropic } = await importSdk('@anthropic-ai/sdk', what, () => import('@anthropic-ai/sdk'));
      // No auth token: the client would otherwise also send ANTHROPIC_AUTH_TOKEN from the environment.
      const anthropic = new Anthropic({ ...client, authToken: null });
      return anthropicModel({
        client: anthropic,
        model: spec.name,
        maxTokens: spec.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
        ...(spec.temperature === undefined ? {} : { temperature: spec.temperature }),
      });
    }
    case 'aiSdk': {
      const { generateText } = await importSdk('ai', what, () => import('ai'));
      const openaiProvider = await importSdk('@ai-sdk/openai', what, () => import('@ai-sdk/openai'));
      const provider = openaiProvider.createOpenAI({
        apiKey,
        baseURL: baseUrl,
        ...(spec.timeoutMs === undefined ? {} : { fetch: fetchWithTimeout(spec.timeoutMs) }),
      });
      // Chat Completions: what OpenAI-compatible servers speak (the provider's default is OpenAI's Responses API).
      return aiSdkModel({
        generateText,
        model: provider.chat(spec.name),
        ...settings,
        ...(spec.maxRetries === undefined ? {} : { maxRetries: spec.maxRetries }),
      });
    }
    default: {
      const never: never = spec.provider;
      throw problem('provider', `unknown provider ${String(never)}`);
    }
  }
}
