/**
 * Prometheus metrics of one server app (`/metrics`, via `prom-client`): requests by route and
 * status, request latency, and store errors by code. Routes are labelled by their pattern
 * (`/sessions/:id`), never by id, and nothing is labelled by tenant: the scrape reveals no data.
 * @module
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { MiddlewareHandler } from 'hono';
import { ChatstateError } from '../errors.js';
import type { ServerEnv } from './env.js';

/** Latency buckets, in seconds: sub-millisecond appends to slow turns. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The metrics of one app, in a registry of its own (two apps in one process do not share counts). */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'chatstate_http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'chatstate_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: BUCKETS,
    registers: [this.registry],
  });
  private readonly storeErrors = new Counter({
    name: 'chatstate_store_errors_total',
    help: 'Requests that failed in the store (unreachable, damaged, refused), by error code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'chatstate_' });
  }

  // The labelled series, by their labels: prom-client hashes a label object on every call, a
  // measurable part of a fast request; the few series a server has are looked up once.
  private readonly timers = new Map<string, { observe(seconds: number): void }>();
  private readonly counters = new Map<string, { inc(): void }>();

  /** Middleware that counts and times each request once it is answered. */
  middleware(): MiddlewareHandler<ServerEnv> {
    return async (c, next) => {
      const start = performance.now();
      try {
        await next();
      } finally {
        // The matched route's pattern; an unmatched path is one label, not one per path.
        const route = c.req.routePath === '/*' || c.req.routePath === '*' ? 'unmatched' : c.req.routePath;
        const method = c.req.method;
        const status = String(c.res.status);
        const series = `${method} ${route}`;
        let timer = this.timers.get(series);
        if (timer === undefined) this.timers.set(series, (timer = this.latency.labels({ method, route })));
        timer.observe((performance.now() - start) / 1000);
        let counter = this.counters.get(`${series} ${status}`);
        if (counter === undefined)
          this.counters.set(`${series} ${status}`, (counter = this.requests.labels({ method, route, status })));
        counter.inc();
      }
    };
  }

  /** Counts `error` when the store caused it (a closing server's own `CLOSED` is not the store's). */
  storeError(error: unknown): void {
    if (!ChatstateError.hasCode(error, 'UNAVAILABLE', 'STORAGE_FAILED', 'CORRUPT', 'WRONG_KEY', 'CLOSED')) return;
    if (error.code === 'CLOSED' && error.details['server'] === 'closing') return;
    this.storeErrors.inc({ code: error.code });
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
