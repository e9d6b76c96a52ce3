// What both OTLP transports ask of the receiver, wherever it runs, and the one Gate that answers
// it: on the exporter's event loop (ingest.ts stores what it decoded) or on the ingest thread
// (thread/worker.ts has the exporter's loop store it). Admission, counting and decoding are
// written once here; only where the state comes from, where counts go and who stores differ
// (GateSide).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ValidatedConfig } from '../config.js';
import type { RefusalReason } from './metrics.js';
import type { Converted } from '../journeys/spans/index.js';
import type { ByteBudget } from './budget.js';
import type { BodyDecoder } from './decoder.js';

export interface IngestLimits {
  /** Largest body after inflation (413 / RESOURCE_EXHAUSTED beyond). */
  maxBodyBytes: number;
  /** Bytes of bodies read or worked on at once, over all requests of both transports. */
  maxInflightBytes: number;
  /** Spans in one request (413 / RESOURCE_EXHAUSTED beyond). */
  maxSpansPerRequest: number;
  /** Journey steps one request may store, a batch's fan-out included (partial success beyond). */
  maxStepsPerRequest: number;
  /** The adjusted count a span's sampling threshold may claim (adjusted-count.ts). */
  maxAdjustedCount: number;
  /** A body idle this long is dropped (ms). */
  bodyIdleMs: number;
  /** A body not whole this long after its first byte was asked for is dropped (ms). */
  bodyMs: number;
  /** A refused body of a declared length is thrown away by Node's HTTP parser (discard.ts). */
  discardInParser: boolean;
}

/** The receiver's limits, from the configuration: the same on the exporter's loop and its thread. */
export function ingestLimits(config: ValidatedConfig): IngestLimits {
  const j = config.journeys;
  return {
    maxBodyBytes: j.maxBodyBytes,
    maxInflightBytes: j.maxInflightBytes,
    maxSpansPerRequest: j.maxSpansPerRequest,
    maxStepsPerRequest: j.maxStepsPerRequest,
    maxAdjustedCount: j.maxAdjustedCount,
    bodyIdleMs: j.bodyIdleTimeoutSeconds * 1000,
    bodyMs: j.bodyTimeoutSeconds * 1000,
    discardInParser: config.parserDiscard,
  };
}

/** Why nothing of a request was stored, and what the client should do. */
export type Outcome =
  /** Stored; `rejected` spans (with `message`) were not. */
  | { kind: 'stored'; rejected: number; message: string }
  /** Retry later (503 / UNAVAILABLE); nothing was stored. */
  | { kind: 'refused'; reason: RefusalReason; message: string }
  /** Do not retry: the body is wrong (400 / INVALID_ARGUMENT) or too large (413 / RESOURCE_EXHAUSTED). */
  | { kind: 'invalid'; tooLarge: boolean; message: string };

export type Admission = Outcome | { kind: 'unauthorized'; message: string } | null;

/** The receiver as the transports (route.ts, grpc.ts) see it. */
export interface IngestGate {
  readonly limits: IngestLimits;
  readonly budget: ByteBudget;
  /** Whether a request may come in at all, from its `Authorization` value; counted. */
  admit(authorization: string | undefined): Admission;
  /** A refusal, counted by reason. */
  refuse(reason: RefusalReason, message: string): Outcome;
  /** A body that could not be read at all (counted as one rejected span). */
  unreadable(message: string, tooLarge: boolean): Outcome;
  /**
   * Decodes, normalises and stores one body; the caller holds its budget. `sender`: the peer's
   * address (the topology's early refreshes are budgeted per sender).
   */
  ingest(format: 'protobuf' | 'json', bytes: Buffer | Buffer[], sender: string): Promise<Outcome>;
}

/** The journey store as admission sees it. */
export type StoreState = 'none' | 'starting' | 'ready';

export const tokenDigest = (token: string | null): Buffer | null =>
  token ? createHash('sha256').update(token).digest() : null;

/**
 * The admission rule: refused while shutting down, without the token (when one is set), without a
 * store or before it is ready, and over the memory budget. Returns what to count (`count`) apart
 * from the answer.
 */
export function admission(
  authorization: string | undefined,
  expected: Buffer | null,
  accepting: boolean,
  store: StoreState,
  /** The exporter is over its memory budget (runtime/memory.ts). */
  overMemory = false,
): { answer: Admission; count: RefusalReason | null } {
  const refused = (reason: RefusalReason, message: string) => ({
    answer: { kind: 'refused' as const, reason, message },
    count: reason,
  });
  if (!accepting)
    return refused('shutting_down', 'the exporter is shutting down; retry on another');
  if (expected) {
    const given = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
    const digest = given ? createHash('sha256').update(given).digest() : null;
    if (!digest || !timingSafeEqual(digest, expected))
      return {
        answer: {
          kind: 'unauthorized',
          message: 'missing or wrong bearer token (the ingest token)',
        },
        count: 'unauthorized',
      };
  }
  if (store === 'none')
    return {
      answer: {
        kind: 'refused',
        reason: 'store_unavailable',
        message: 'the journey store is not configured (ACKTRAIL_DATABASE_URL)',
      },
      count: null,
    };
  if (store === 'starting')
    return refused('store_unavailable', 'the journey store is not ready yet; retry later');
  if (overMemory)
    return refused('over_memory', 'the exporter is over its memory budget; retry later');
  return { answer: null, count: null };
}

/** Where a gate runs: its state, where its counts go and who stores what it decoded. */
export interface GateSide {
  state(): { accepting: boolean; store: StoreState; overMemory: boolean };
  /** A request refused, by reason (acktrail_otlp_requests_refused_total). */
  refused(reason: RefusalReason): void;
  /** A body that could not be read (one rejected span). */
  unreadable(): void;
  /** Stores the steps a body was decoded into, and says how it went. */
  accept(converted: Converted): Promise<Outcome>;
}

/** The receiver's one gate: the same on the exporter's loop and on the ingest thread. */
export class Gate implements IngestGate {
  private readonly expected: Buffer | null;

  constructor(
    readonly limits: IngestLimits,
    readonly budget: ByteBudget,
    readonly decoder: BodyDecoder,
    private readonly settings: { ingestToken: string | null; retentionDays: number },
    private readonly side: GateSide,
  ) {
    this.expected = tokenDigest(settings.ingestToken);
  }

  admit(authorization: string | undefined): Admission {
    const { accepting, store, overMemory } = this.side.state();
    const { answer, count } = admission(authorization, this.expected, accepting, store, overMemory);
    if (count) this.side.refused(count);
    return answer;
  }

  refuse(reason: RefusalReason, message: string): Outcome {
    this.side.refused(reason);
    return { kind: 'refused', reason, message };
  }

  unreadable(message: string, tooLarge: boolean): Outcome {
    this.side.unreadable();
    return { kind: 'invalid', tooLarge, message };
  }

  async ingest(
    format: 'protobuf' | 'json',
    bytes: Buffer | Buffer[],
    sender: string,
  ): Promise<Outcome> {
    const { maxSpansPerRequest, maxStepsPerRequest, maxAdjustedCount } = this.limits;
    const converted = await this.decoder.decode(
      format,
      bytes,
      { maxSpans: maxSpansPerRequest, maxSteps: maxStepsPerRequest, maxAdjustedCount },
      this.settings.retentionDays,
    );
    if ('undecodable' in converted)
      return this.unreadable(converted.undecodable, converted.tooLarge);
    return this.side.accept({ ...converted, sender });
  }
}
