// Turns OTLP bodies into journey steps (journeys/spans/convert.ts): small ones on the main thread, where a
// worker's round trip would cost more than the work, and bodies of offThreadBytes or more in
// worker threads (piscina), so that parsing megabytes of JSON or protobuf, and normalising
// thousands of spans, never stalls /metrics, /healthz and the other requests. The body's chunks
// are moved to the worker, not copied; what comes back is the steps (a few hundred bytes each, a
// small part of the body they were read from) and the coverage's counts: the spans themselves
// never reach the event loop.
import type { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { convert, type Converted } from '../journeys/spans/index.js';
import type { DecodeOutcome, DecodeTask, DecodeWorkerData } from './decode-worker.js';
import type { Window } from '../journeys/spans/index.js';
import { DecodeError } from '../journeys/spans/index.js';

const DAY_US = 86_400_000_000;

/** What one body may hold (journeys.maxSpansPerRequest, maxStepsPerRequest, maxAdjustedCount). */
export interface DecodeLimits {
  maxSpans: number;
  maxSteps: number;
  maxAdjustedCount: number;
}

/** A body that could not be decoded: what the client is told, and whether it was too large. */
export interface Undecodable {
  undecodable: string;
  tooLarge: boolean;
}

/** Run from source (tsx) the worker is TypeScript; from dist, JavaScript. */
const WORKER = new URL(
  import.meta.url.endsWith('.ts') ? './decode-worker.ts' : './decode-worker.js',
  import.meta.url,
);

/**
 * A worker's old generation: a body parses into a few times its size (an 8 MiB OTLP/JSON body
 * into about 20 MB at its peak), so six times the largest body, and 64 MB at least.
 */
const workerOldMb = (maxBodyBytes: number) => Math.max(64, Math.ceil((6 * maxBodyBytes) / 2 ** 20));

export class BodyDecoder {
  private pool: Piscina<DecodeTask, DecodeOutcome> | null = null;

  private readonly oldMb: number;

  /**
   * @param offThreadBytes bodies this large or larger are decoded in a worker.
   * @param maxBodyBytes the largest body, which sizes the worker's heap.
   * @param lowerThreads the workers run below the event loop (runtime/threads.ts).
   */
  constructor(
    private readonly offThreadBytes: number,
    maxBodyBytes: number,
    private readonly lowerThreads = true,
  ) {
    this.oldMb = workerOldMb(maxBodyBytes);
  }

  /**
   * Converts a body as a receiver takes it: spans outside `retentionDays` back or a day ahead are
   * rejected, so are spans past the body's step bound, and a body that does not decode is an
   * Undecodable, not a throw.
   */
  async decode(
    format: DecodeTask['format'],
    body: Buffer | Buffer[],
    limits: DecodeLimits,
    retentionDays: number,
  ): Promise<Converted | Undecodable> {
    const now = Date.now() * 1000;
    const { maxSpans, maxSteps, maxAdjustedCount } = limits;
    const window = {
      fromUs: now - retentionDays * DAY_US,
      toUs: now + DAY_US,
      maxSteps,
      maxAdjustedCount,
    };
    try {
      return await this.convert(format, body, maxSpans, window);
    } catch (err) {
      if (!(err instanceof DecodeError) && !(err instanceof RangeError)) throw err;
      return { undecodable: err.message, tooLarge: err instanceof DecodeError && err.tooMany };
    }
  }

  /** Converts a body, whole or as the chunks it was read in (convert.ts). */
  async convert(
    format: DecodeTask['format'],
    body: Buffer | Buffer[],
    maxSpans: number,
    window: Window,
  ): Promise<Converted> {
    const chunks = Array.isArray(body) ? body : [body];
    const size = chunks.reduce((n, c) => n + c.length, 0);
    if (size < this.offThreadBytes) {
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      return convert(format, bytes, maxSpans, window);
    }
    this.pool ??= new Piscina<DecodeTask, DecodeOutcome>({
      filename: WORKER.href,
      workerData: { lowerThreads: this.lowerThreads } satisfies DecodeWorkerData,
      // One core stays for the event loop; the in-flight budget bounds the queue's bytes.
      maxThreads: Math.max(1, availableParallelism() - 1),
      minThreads: 1,
      idleTimeout: 60_000,
      // A worker decodes one body (at most maxBodyBytes) at a time: a small heap of its own,
      // collected often, rather than one that grows as V8 likes under a flood.
      resourceLimits: { maxOldGenerationSizeMb: this.oldMb, maxYoungGenerationSizeMb: 8 },
    });
    // The chunks go to the worker as they are, joined there: the event loop neither copies the
    // body nor holds a second copy of it until a collection. A chunk that owns its memory (what a
    // socket read gives) is moved; a view of a shared buffer (an inflated body's) is copied.
    const parts = chunks.map((c) =>
      c.byteOffset === 0 && c.byteLength === c.buffer.byteLength
        ? c
        : Uint8Array.prototype.slice.call(c),
    );
    const outcome = await this.pool
      .run(
        { format, parts, maxSpans, window },
        { transferList: parts.map((p) => p.buffer as ArrayBuffer) },
      )
      .catch((err: unknown) => {
        // A body whose decoding outgrows the worker's heap is too large for this receiver (413).
        if ((err as { code?: unknown }).code !== 'ERR_WORKER_OUT_OF_MEMORY') throw err;
        throw new DecodeError(
          `decoding this body needs more than the ${this.oldMb} MB a decoding worker has; send smaller batches`,
          true,
        );
      });
    if (!outcome.ok) throw new DecodeError(outcome.message, outcome.tooMany);
    return outcome.converted;
  }

  /** The decoding workers running now (their memory counts against the memory budget). */
  threads(): readonly Worker[] {
    return this.pool?.threads ?? [];
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }
}
