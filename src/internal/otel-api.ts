/**
 * `@opentelemetry/api`, an optional peer: loaded on first use (never by importing chatstate), and
 * `undefined` when it is not installed, so tracing is then a no-op. The API keeps its providers on
 * a process-wide global, so this copy sees the provider an app registers through its own import.
 * @module
 */
import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';

/** The OpenTelemetry API module. */
export type Otel = typeof OtelApi;

const require = createRequire(import.meta.url);
/** `undefined` until first asked; `null` when the package is not installed. */
let loaded: Otel | null | undefined;

/** The OpenTelemetry API, or `undefined` when `@opentelemetry/api` is not installed. */
export function otelApi(): Otel | undefined {
  if (loaded === undefined) {
    try {
      loaded = require('@opentelemetry/api') as Otel;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
