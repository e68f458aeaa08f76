/**
 * An OpenTelemetry SDK registered as the global tracer and meter providers, with in-memory
 * exporters: what an app's setup does, for tests and the bench to read chatstate's spans and metrics.
 */
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';

/** A reader collecting on demand. */
class PullReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** The registered SDK. */
export interface Telemetry {
  readonly exporter: InMemorySpanExporter;
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The spans named `name` (or starting with it, when it ends in `*`). */
  named(name: string): ReadableSpan[];
  /** The metrics recorded so far. */
  collect(): Promise<ResourceMetrics>;
  /** Unregisters the providers and shuts them down. */
  uninstall(): Promise<void>;
}

/** Registers a tracer provider (exporting to memory, or to `exporter`) and a meter provider as the globals. */
export function installTelemetry(options: { exporter?: SpanExporter } = {}): Telemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(options.exporter ?? exporter)],
  });
  const reader = new PullReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    named: (name) =>
      exporter
        .getFinishedSpans()
        .filter((span) => (name.endsWith('*') ? span.name.startsWith(name.slice(0, -1)) : span.name === name)),
    async collect() {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics;
    },
    async uninstall() {
      trace.disable();
      metrics.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}
