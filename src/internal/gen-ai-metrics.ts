/**
 * The GenAI conventions' client metrics of model calls, through the global `MeterProvider` of the
 * optional `@opentelemetry/api`: `gen_ai.client.operation.duration` (seconds) and
 * `gen_ai.client.token.usage` (input and output tokens). Recording never fails a call.
 * @module
 */
import type { Histogram, MeterProvider } from '@opentelemetry/api';
import {
  ERROR_TYPE,
  GEN_AI_OPERATION_NAME,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_REQUEST_MODEL,
  GEN_AI_RESPONSE_MODEL,
  GEN_AI_TOKEN_TYPE,
  METRIC_OPERATION_DURATION,
  METRIC_TOKEN_USAGE,
} from './gen-ai-names.js';
import { otelApi } from './otel-api.js';

/** The buckets the conventions advise for each histogram. */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

/** One finished model call, as the metrics see it. */
export interface ModelCallMeasure {
  readonly operation: string;
  readonly provider: string;
  readonly requestModel: string;
  readonly responseModel?: string | undefined;
  /** Set when the call failed. */
  readonly errorType?: string | undefined;
  readonly seconds: number;
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
}

let cached: { provider: MeterProvider; duration: Histogram; tokens: Histogram } | undefined;

/** The histograms of the global meter provider (made again when the app registers another). */
function histograms(): { duration: Histogram; tokens: Histogram } | undefined {
  const api = otelApi();
  if (api === undefined) return undefined;
  const provider = api.metrics.getMeterProvider();
  if (cached?.provider !== provider) {
    const meter = provider.getMeter('chatstate');
    cached = {
      provider,
      duration: meter.createHistogram(METRIC_OPERATION_DURATION, {
        description: 'GenAI operation duration.',
        unit: 's',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
      tokens: meter.createHistogram(METRIC_TOKEN_USAGE, {
        description: 'Number of input and output tokens used.',
        unit: '{token}',
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      }),
    };
  }
  return cached;
}

/** Records the duration and token usage of one model call. */
export function recordModelCall(measure: ModelCallMeasure): void {
  try {
    const recorders = histograms();
    if (recorders === undefined) return;
    const attributes: Record<string, string> = {
      [GEN_AI_OPERATION_NAME]: measure.operation,
      [GEN_AI_PROVIDER_NAME]: measure.provider,
      [GEN_AI_REQUEST_MODEL]: measure.requestModel,
    };
    if (measure.responseModel !== undefined) attributes[GEN_AI_RESPONSE_MODEL] = measure.responseModel;
    if (measure.errorType !== undefined) attributes[ERROR_TYPE] = measure.errorType;
    recorders.duration.record(measure.seconds, attributes);
    if (measure.inputTokens !== undefined)
      recorders.tokens.record(measure.inputTokens, { ...attributes, [GEN_AI_TOKEN_TYPE]: 'input' });
    if (measure.outputTokens !== undefined)
      recorders.tokens.record(measure.outputTokens, { ...attributes, [GEN_AI_TOKEN_TYPE]: 'output' });
  } catch {
    // Metrics are best effort.
  }
}
