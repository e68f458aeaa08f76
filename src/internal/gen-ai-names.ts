/**
 * Attribute, metric and value names of the OpenTelemetry GenAI semantic conventions (and
 * chatstate's own, under `chatstate.`). Copied rather than imported, as the conventions advise for
 * their incubating names: a test holds them to `@opentelemetry/semantic-conventions/incubating`.
 * @module
 */
export const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
export const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const GEN_AI_AGENT_ID = 'gen_ai.agent.id';
export const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const GEN_AI_DATA_SOURCE_ID = 'gen_ai.data_source.id';
export const GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';
export const SESSION_ID = 'session.id';
export const SESSION_PREVIOUS_ID = 'session.previous_id';
export const ERROR_TYPE = 'error.type';

export const OPERATION_CHAT = 'chat';
export const OPERATION_INVOKE_AGENT = 'invoke_agent';
export const OPERATION_EXECUTE_TOOL = 'execute_tool';
export const OPERATION_RETRIEVAL = 'retrieval';

export const METRIC_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_OPERATION_DURATION = 'gen_ai.client.operation.duration';

/** The conventions' `gen_ai.provider.name` of a chatstate wire format (`ProviderName`); the AI SDK's names no single provider. */
export function genAiProvider(provider: string): string {
  switch (provider) {
    case 'openaiChat':
    case 'openaiResponses':
      return 'openai';
    case 'anthropic':
      return 'anthropic';
    case 'gemini':
      return 'gcp.gemini';
    default:
      return 'ai_sdk';
  }
}
