// The worker side of BodyDecoder (decoder.ts): decodes one OTLP body off the main thread. What it
// throws crosses the thread as plain data (a class does not), so it answers with an outcome.
import { decodeJson, decodeProtobuf } from './decode.js';
import { DecodeError } from './spans.js';

export interface DecodeTask {
  format: 'json' | 'protobuf';
  /** The body as it was read, in chunks moved from the main thread. */
  parts: Uint8Array[];
  maxSpans: number;
}

export type DecodeOutcome =
  | { ok: true; spans: ReturnType<typeof decodeJson> }
  | { ok: false; message: string; tooMany: boolean };

export default function decode(task: DecodeTask): DecodeOutcome {
  const { parts } = task;
  const body =
    parts.length === 1
      ? Buffer.from(parts[0]!.buffer, parts[0]!.byteOffset, parts[0]!.byteLength)
      : Buffer.concat(parts);
  try {
    const spans =
      task.format === 'json'
        ? decodeJson(body, task.maxSpans)
        : decodeProtobuf(body, task.maxSpans);
    return { ok: true, spans };
  } catch (err) {
    if (err instanceof DecodeError)
      return { ok: false, message: err.message, tooMany: err.tooMany };
    if (err instanceof RangeError) return { ok: false, message: err.message, tooMany: false };
    throw err;
  }
}
