// The config file's `journeys` section (exporter/src/receiver/, exporter/src/journeys/): the OTLP
// receiver's bounds, the journey store's, and the pipeline's own words.
import { z } from 'zod';
import { ownSecret, resultWords, seconds, word } from './primitives.js';

/** Spans in, journeys out (docs/api.md). */
export const journeys = z.strictObject({
  /** Receive OTLP spans on /v1/traces and serve the journey API; needs a journey store. */
  enabled: z.boolean().default(true),
  /** Whole days of steps kept; older daily partitions are dropped. */
  retentionDays: z.number().int().min(1).max(3650).default(14),
  /** Largest OTLP request body accepted, after gzip inflation (413 beyond). */
  maxBodyBytes: z
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  /**
   * Bytes of OTLP bodies (after inflation) read or worked on at once, over all requests, charged
   * as they arrive (never by the declared length): past it the receiver answers 503 with
   * Retry-After and discards the rest of the body. With maxPendingSteps it is what bounds the
   * exporter's memory under a flood (docs/security.md).
   */
  maxInflightBytes: z
    .number()
    .int()
    .min(1024)
    .default(32 * 1024 * 1024),
  /**
   * A request body that sends nothing for this long is dropped and its budget freed: an idle
   * connection never holds the in-flight budget from the SDKs that send.
   */
  bodyIdleTimeoutSeconds: z.number().positive().max(300).default(10),
  /**
   * A request body (or gRPC message) must arrive whole within this long of its first byte being
   * asked for, or it is dropped (408, DEADLINE_EXCEEDED) and its budget freed: a client that sends
   * most of a body and then a byte every few seconds holds the budget this long at most. The
   * OpenTelemetry SDKs give a whole export 10 s (OTEL_EXPORTER_OTLP_TIMEOUT).
   */
  bodyTimeoutSeconds: z.number().positive().max(120).default(30),
  /**
   * OTLP bodies this large or larger (after inflation) are decoded and turned into journey steps
   * in worker threads, off the event loop that answers /metrics and /healthz (on Linux at 10 nice
   * steps below it); smaller ones where they arrive.
   */
  decodeOffThreadBytes: z
    .number()
    .int()
    .min(0)
    .default(256 * 1024),
  /** Spans in one OTLP request (413 beyond); SDKs send 512 by default. */
  maxSpansPerRequest: z.number().int().min(1).default(10_000),
  /**
   * Journey steps one OTLP request may store: a batch receive stores a delivery and a settle per
   * linked message. Spans past it are rejected (a partial success that names the bound).
   */
  maxStepsPerRequest: z.number().int().min(2).default(20_000),
  /**
   * The adjusted count a span's sampling threshold (tracestate ot=th) may claim: a sampling
   * probability of 1 / maxAdjustedCount. A span claiming more counts as one and is counted in
   * acktrail_sampling_thresholds_refused_total. Raise it for services that sample below 0.1 %.
   */
  maxAdjustedCount: z.number().int().min(1).max(1_000_000_000).default(1000),
  /** Steps waiting for the store at once; a write past it is refused (503, or a Celery retry). */
  maxPendingSteps: z.number().int().min(100).default(100_000),
  /**
   * With a token, /v1/traces needs `Authorization: Bearer <token>`: what SDKs send with
   * OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <token>". ACKTRAIL_INGEST_TOKEN overrides it.
   */
  ingestToken: ownSecret.nullable().default(null),
  /**
   * Connections of the pool the API's reads (lookups, lists, Celery workflows, queue heads) use
   * on the primary: a pool of their own, so that reads never take ingest's, parking's or
   * replay's connections.
   */
  readPoolSize: z.number().int().min(1).max(100).default(4),
  /**
   * Event lists (`GET /api/events`) one token may run at once; 429 with Retry-After beyond. The
   * dashboard reads with one token for every viewer: its overview alone runs three at once.
   */
  maxConcurrentListsPerToken: z.number().int().min(1).max(100).default(6),
  /** Every statement of the store's pools (writes, API reads) ends after this long. */
  statementTimeoutSeconds: seconds(30),
  /** A statement waits at most this long for a lock (partition changes, concurrent writes). */
  lockTimeoutSeconds: seconds(5),
  /** Reads leave a read replica (ACKTRAIL_DATABASE_READ_URL) that lags further behind than this. */
  maxReadLagSeconds: seconds(30),
  /** An outbox row unpublished for this long makes its journey "stuck in the outbox". */
  stuckAfterSeconds: seconds(60),
  /** A delivery with no settle step after this long makes its journey "never acked". */
  unackedAfterSeconds: seconds(300),
  /**
   * Where a consumer's instrumentation records no settle (the .NET client, pika, aio-pika, Spring,
   * Bunny), how long after a delivery its journey waits for a dead letter or a redelivery before
   * the broker's silence and its counters decide how it ended (docs/adopting.md, "Settles the
   * spans do not record").
   */
  settleEvidenceSeconds: z.number().positive().max(3600).default(30),
  /** The pipeline's own words in verdicts and on the dashboard. */
  words: z
    .strictObject({
      /** Its aggregate: "order", "payment", "shipment". `/orders/{id}` answers whatever it is. */
      aggregate: word.default('aggregate'),
      /** What is done once an event's work is: "confirmation sent", "payment captured". */
      done: word.default('processed'),
      /** What the consumer's `acktrail.result` values mean, where it records one. */
      results: z
        .strictObject({
          /** The delivery did the work; empty: every ack not listed under another meaning did. */
          done: resultWords,
          /** It found the work done before and only acked (a duplicate it ignored). */
          alreadyDone: resultWords,
          /** It skipped an event older than what it had processed (ordering kind `stale`). */
          stale: resultWords,
        })
        .default({ done: [], alreadyDone: [], stale: [] }),
    })
    .default({
      aggregate: 'aggregate',
      done: 'processed',
      results: { done: [], alreadyDone: [], stale: [] },
    }),
});
