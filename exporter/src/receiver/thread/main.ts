// The exporter's side of the ingest thread (worker.ts): starts it once OTLP/HTTP has a port of
// its own (ACKTRAIL_INGEST_PORT), stores what it decoded (Ingest.accept) and counts what it
// refused, tells it when the exporter stops accepting requests and when the store is ready, and
// answers its /readyz and /status. A thread that dies is started again on the same ports.
import { Worker } from 'node:worker_threads';
import type { ValidatedConfig } from '../../config.js';
import type { Logger } from '../../log.js';
import { errorMessage } from '../../log.js';
import type { Ingest } from '../ingest.js';
import { ingestLimits } from '../gate.js';
import type { FromThread, ThreadData, ThreadProbes, ToThread } from './messages.js';

/** Run from source (tsx) the worker is TypeScript; from dist, JavaScript. */
const WORKER = new URL(
  import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js',
  import.meta.url,
);
const RESTART_AFTER_MS = 1000;
/**
 * The thread's heap: bodies are Buffers outside it, large ones decode in the decoding workers;
 * what it holds is small requests' spans and steps. A small young generation, collected often,
 * rather than the 3 x 16 MB semi-spaces the process's flag gives every isolate.
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 192 };

/** The thread's settings, from the configuration. */
export function threadData(config: ValidatedConfig): ThreadData {
  const j = config.journeys;
  return {
    host: config.listenHost,
    httpPort: config.ingestPort ?? 0,
    grpcPort: config.otlpGrpcPort,
    keepAliveTimeoutMs: config.keepAliveTimeoutMs,
    limits: ingestLimits(config),
    ingestToken: j.ingestToken,
    offThreadBytes: j.decodeOffThreadBytes,
    lowerThreads: config.lowerThreads,
    retentionDays: j.retentionDays,
  };
}

export interface ThreadPorts {
  http: number;
  grpc: number | null;
}

export class IngestThread {
  private worker: Worker | null = null;
  private ports: ThreadPorts | null = null;
  private closing = false;
  private closed: (() => void) | null = null;

  constructor(
    private readonly ingest: Ingest,
    private readonly probes: ThreadProbes,
    private readonly data: ThreadData,
    private readonly log: Logger,
  ) {
    // The state changes when the store becomes ready, the exporter stops accepting, or memory
    // crosses the budget.
    void ingest.opts.writer?.whenReady().then(() => {
      this.tell();
    });
    ingest.opts.memory?.onChange(() => {
      this.tell();
    });
  }

  /**
   * Starts the thread, listening on `host`; resolves with its ports once it listens, rejects when
   * it cannot.
   */
  start(host = this.data.host): Promise<ThreadPorts> {
    const data = {
      ...this.data,
      host,
      ...(this.ports ? { httpPort: this.ports.http, grpcPort: this.ports.grpc } : {}),
    };
    const worker = new Worker(WORKER, { workerData: data, resourceLimits: RESOURCE_LIMITS });
    this.worker = worker;
    return new Promise<ThreadPorts>((resolve, reject) => {
      const failed = (err: Error) => {
        reject(new Error(`the ingest thread cannot start: ${err.message}`));
      };
      worker.once('error', failed);
      worker.on('message', (m: FromThread) => {
        if (m.type === 'listening') {
          worker.off('error', failed);
          worker.on('error', (err) => {
            this.log.error({ err: errorMessage(err) }, 'the ingest thread failed');
          });
          this.ports = { http: m.http, grpc: m.grpc };
          this.tell();
          resolve(this.ports);
          return;
        }
        void this.onMessage(m);
      });
      worker.once('exit', (code) => {
        this.closed?.();
        if (this.closing || this.worker !== worker) return;
        this.log.error({ code }, 'the ingest thread stopped; starting it again');
        setTimeout(() => {
          if (!this.closing)
            this.start(host).catch((err: unknown) => {
              this.log.error({ err: errorMessage(err) }, 'the ingest thread did not start again');
            });
        }, RESTART_AFTER_MS).unref();
      });
    });
  }

  /** The thread, while it runs (its memory counts against the memory budget). */
  threads(): readonly Worker[] {
    return this.worker ? [this.worker] : [];
  }

  /** From now on the thread refuses requests (the exporter is shutting down). */
  stopAccepting(): void {
    this.tell();
  }

  /** Lets the thread's requests in flight end within `graceMs`, then ends it. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (!worker) return;
    const ended = new Promise<void>((resolve) => {
      this.closed = resolve;
    });
    this.send({ type: 'close', graceMs });
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, graceMs + 5000).unref());
    await Promise.race([ended, timeout]);
    await worker.terminate();
  }

  private send(m: ToThread): void {
    this.worker?.postMessage(m);
  }

  /** Tells the thread the exporter's state: whether it accepts requests, the store is ready, memory is over the budget. */
  private tell(): void {
    this.send({
      type: 'state',
      accepting: this.ingest.accepting,
      store: this.ingest.store,
      overMemory: this.ingest.opts.memory?.over ?? false,
    });
  }

  private async onMessage(m: FromThread): Promise<void> {
    switch (m.type) {
      case 'refused':
        this.ingest.countRefused(m.reason);
        return;
      case 'unreadable':
        this.ingest.countUnreadable();
        return;
      case 'inflight':
        this.ingest.opts.metrics.inflightBytes.set(m.bytes);
        return;
      case 'accept': {
        const outcome = await this.ingest.accept(m.converted).catch((err: unknown) => {
          this.log.error({ err: errorMessage(err) }, 'storing what the ingest thread read failed');
          return { error: errorMessage(err) };
        });
        this.send({ type: 'outcome', id: m.id, outcome });
        return;
      }
      case 'probe':
        this.send({
          type: 'probe',
          id: m.id,
          answer: m.name === 'status' ? this.probes.status(m.authorization) : this.probes.readyz(),
        });
        return;
      case 'closed':
        this.closed?.();
    }
  }
}
