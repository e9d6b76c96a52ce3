// What the exporter's event loop (main.ts here) and the ingest thread (worker.ts) say to each other.
import type { RefusalReason } from '../metrics.js';
import type { Converted } from '../../journeys/spans/index.js';
import type { IngestLimits, Outcome, StoreState } from '../gate.js';

/** A probe's answer: its HTTP status and JSON body. */
export interface ProbeAnswer {
  status: number;
  body: object;
}

/**
 * The exporter's /readyz and /status, answered for the ingest port: /status with the request's
 * Authorization (the metrics token, when one is set).
 */
export interface ThreadProbes {
  readyz(): ProbeAnswer;
  status(authorization: string | undefined): ProbeAnswer;
}

/** What the ingest thread is started with. */
export interface ThreadData {
  host: string;
  /** OTLP/HTTP's port (ACKTRAIL_INGEST_PORT; 0: any free port). */
  httpPort: number;
  /** OTLP/gRPC's port; null: off. */
  grpcPort: number | null;
  keepAliveTimeoutMs: number;
  limits: IngestLimits;
  ingestToken: string | null;
  offThreadBytes: number;
  /** The thread and its decoding workers run below the event loop (runtime/threads.ts). */
  lowerThreads: boolean;
  retentionDays: number;
}

export type ToThread =
  | { type: 'state'; accepting: boolean; store: StoreState; overMemory: boolean }
  | { type: 'outcome'; id: number; outcome: Outcome | { error: string } }
  | { type: 'probe'; id: number; answer: ProbeAnswer }
  | { type: 'close'; graceMs: number };

export type FromThread =
  | { type: 'listening'; http: number; grpc: number | null }
  | { type: 'refused'; reason: RefusalReason }
  | { type: 'unreadable' }
  | { type: 'inflight'; bytes: number }
  | { type: 'accept'; id: number; converted: Converted }
  | { type: 'probe'; id: number; name: 'readyz' | 'status'; authorization?: string }
  | { type: 'closed' };
