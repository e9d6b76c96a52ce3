// The worker side of BodyDecoder (decoder.ts): converts one OTLP body into steps off the main
// thread (journeys/spans/convert.ts). What it throws crosses the thread as plain data (a class does not), so it
// answers with an outcome.
import { convert, type Converted } from '../journeys/spans/index.js';
import type { Window } from '../journeys/spans/index.js';
import { DecodeError } from '../journeys/spans/index.js';
import { workerData } from 'node:worker_threads';
import { lowerThisThread } from '../runtime/threads.js';

export interface DecodeWorkerData {
  lowerThreads: boolean;
}

// Decoding is background work: this thread runs below the event loop (threads.ts), unless the
// configuration says otherwise (ACKTRAIL_LOWER_THREADS=off).
if ((workerData as DecodeWorkerData).lowerThreads) lowerThisThread();

export interface DecodeTask {
  format: 'json' | 'protobuf';
  /** The body as it was read, in chunks moved from the main thread. */
  parts: Uint8Array[];
  maxSpans: number;
  window: Window;
}

export type DecodeOutcome =
  { ok: true; converted: Converted } | { ok: false; message: string; tooMany: boolean };

export default function decode(task: DecodeTask): DecodeOutcome {
  const { parts } = task;
  const body =
    parts.length === 1
      ? Buffer.from(parts[0]!.buffer, parts[0]!.byteOffset, parts[0]!.byteLength)
      : Buffer.concat(parts);
  try {
    return { ok: true, converted: convert(task.format, body, task.maxSpans, task.window) };
  } catch (err) {
    if (err instanceof DecodeError)
      return { ok: false, message: err.message, tooMany: err.tooMany };
    if (err instanceof RangeError) return { ok: false, message: err.message, tooMany: false };
    throw err;
  }
}
