// The OTLP trace receiver's core on the exporter's loop: its gate (gate.ts: the token, the
// in-flight budget, decoding) and the hand-over of what it admitted to the journey writer
// (journeys/writer.ts), for the transports on this loop (route.ts, grpc.ts) and for what the
// ingest thread decoded (thread/main.ts). Each transport reads its body its own way, then asks
// the gate for an Outcome and answers it in its own terms (HTTP status or gRPC status code); the
// writer's outcome is mapped to one here only, and the spans counted by what became of them.
import { ByteBudget } from './budget.js';
import type { BodyDecoder } from './decoder.js';
import type { Converted } from '../journeys/spans/index.js';
import { Gate, type IngestLimits, type Outcome, type StoreState } from './gate.js';
import type { ReceiverMetrics, RefusalReason } from './metrics.js';
import type { MemoryBudget } from '../runtime/memory.js';
import type { WriteOutcome } from '../journeys/writer.js';

export type { IngestLimits, Outcome };

/** Where admitted batches go (journeys/writer.ts). */
export interface Writer {
  write(converted: Converted): Promise<WriteOutcome>;
  /** Whether the store's schema is in place. */
  ready(): boolean;
  /** Resolves once it is. */
  whenReady(): Promise<void>;
}

export interface IngestOptions {
  /** null: no journey store, so no request is admitted. */
  writer: Writer | null;
  metrics: ReceiverMetrics;
  limits: IngestLimits;
  retentionDays: number;
  /** With a token, a request needs `Bearer <token>` (refused otherwise). */
  ingestToken: string | null;
  /** False once the exporter is shutting down: requests that still arrive are refused. */
  accepting: () => boolean;
  /** The exporter's memory budget: over it, requests are refused (503 / UNAVAILABLE). */
  memory?: MemoryBudget;
  /** Decodes bodies; large ones in worker threads. */
  decoder: BodyDecoder;
}

export class Ingest {
  /** What the transports on this loop use (route.ts, grpc.ts). */
  readonly gate: Gate;

  constructor(readonly opts: IngestOptions) {
    const budget = new ByteBudget(opts.limits.maxInflightBytes, (inUse) => {
      opts.metrics.inflightBytes.set(inUse);
    });
    opts.memory?.onChange((over) => {
      budget.setOverMemory(over);
    });
    this.gate = new Gate(opts.limits, budget, opts.decoder, opts, {
      state: () => ({
        accepting: this.accepting,
        store: this.store,
        overMemory: opts.memory?.over ?? false,
      }),
      refused: (reason) => {
        this.countRefused(reason);
      },
      unreadable: () => {
        this.countUnreadable();
      },
      accept: (converted) => this.accept(converted),
    });
  }

  /** The journey store, as admission sees it. */
  get store(): StoreState {
    const writer = this.opts.writer;
    return !writer ? 'none' : writer.ready() ? 'ready' : 'starting';
  }

  /** Whether the exporter still takes requests. */
  get accepting(): boolean {
    return this.opts.accepting();
  }

  /** A request refused (here, or on the ingest thread), by reason. */
  countRefused(reason: RefusalReason): void {
    this.opts.metrics.refused(reason);
  }

  /** A body that could not be read at all: one rejected span, as OTLP has no count. */
  countUnreadable(): void {
    this.opts.metrics.spansReceived('rejected');
  }

  private refuse(reason: RefusalReason, message: string): Outcome {
    this.countRefused(reason);
    return { kind: 'refused', reason, message };
  }

  /** Hands what a body was decoded into (here, or on the ingest thread: thread/) to the writer. */
  async accept(converted: Converted): Promise<Outcome> {
    const { metrics, writer } = this.opts;
    if (!writer) throw new Error('ingest without a store: admit() first');
    const out = await writer.write(converted);
    switch (out.kind) {
      case 'stored':
        metrics.spansReceived('accepted', out.accepted);
        metrics.spansReceived('ignored', out.ignored);
        metrics.spansReceived('rejected', out.rejected);
        return { kind: 'stored', rejected: out.rejected, message: out.message };
      case 'refused':
        metrics.spansReceived('rejected', converted.spans);
        return { kind: 'invalid', tooLarge: false, message: out.message };
      case 'busy':
        return this.refuse('store_busy', `${out.message}; retry later`);
      case 'unavailable':
        return this.refuse('store_unavailable', `${out.message}; retry later`);
    }
  }
}
