// The worker side of BodyDecoder (decoder.ts): converts one OTLP body into steps off the main
// thread (convert.ts). What it throws crosses the thread as plain data (a class does not), so it
// answers with an outcome.
import { getPriority, setPriority } from 'node:os';
import { convert, type Converted } from './convert.js';
import type { Window } from './normalize.js';
import { DecodeError } from './spans.js';

/**
 * Decoding is background work: when the cores are short, the event loop that answers /metrics,
 * /healthz and the API gets one first. This thread runs 10 nice steps below the process (19 at
 * most). On Linux a thread has a nice value of its own, and setpriority on "this process" sets
 * the calling thread's alone; elsewhere it would lower the whole process, so Linux only.
 */
const DECODER_NICE = 10;
if (process.platform === 'linux') {
  try {
    setPriority(0, Math.min(19, getPriority(0) + DECODER_NICE));
  } catch {
    // A sandbox that refuses setpriority leaves the thread at the process's priority: slower
    // answers under load, nothing wrong.
  }
}

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
