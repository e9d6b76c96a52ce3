// One request body -> journey steps: decode, count the coverage, normalise. Pure and plain data
// in and out, so that it runs where BodyDecoder (decoder.ts) puts it: on the event loop for a
// small body, in a decoding worker for a large one. What depends on the exporter's own state is
// left to the event loop: the queues' roles (a reject's fate, a dead-letter queue's deliveries:
// withQueueAnomalies), the bounded service label (Coverage.add) and the store.
import { tallyCoverage, type CoverageTally } from './coverage-tally.js';
import { decodeJson, decodeProtobuf } from './decode.js';
import { normalise, type Window } from './normalize.js';
import { readSpan } from '../profiles/index.js';
import type { Step } from '../model/steps.js';
import type { QueueLookup } from '../../broker/topology.js';
import type { ExchangeIndex } from '../../broker/routes.js';
import { withWhere } from './where.js';
import type { ReceivedSpan } from '../profiles/index.js';
import { stepAnomaly } from '../model/index.js';

export interface Converted {
  /** Spans in the body. */
  spans: number;
  steps: Step[];
  /** Spans that became steps, and spans that stand for no journey stage. */
  accepted: number;
  ignored: number;
  /** Spans refused, counted by reason. */
  rejected: [string, number][];
  /** Spans whose sampling threshold claimed more than the bound (counted as 1 each). */
  thresholdsRefused: number;
  coverage: CoverageTally;
  /** Who sent the body (its peer's address), set by the receiver's gate: early refreshes are its. */
  sender?: string;
}

/** Throws DecodeError (or RangeError) for a body that is not an ExportTraceServiceRequest. */
export function convert(
  format: 'json' | 'protobuf',
  body: Buffer,
  maxSpans: number,
  window: Window,
): Converted {
  return convertSpans(
    format === 'json' ? decodeJson(body, maxSpans) : decodeProtobuf(body, maxSpans),
    window,
  );
}

/**
 * Decoded spans -> steps, rejections and coverage counts (the queues' part left out). A span whose
 * steps would take the body past `window.maxSteps` is rejected whole (a partial success): a batch
 * receive stores a delivery and a settle per linked message, so 1,500 spans of 32 links would be
 * 96,000 rows from 2 MB.
 */
export function convertSpans(spans: readonly ReceivedSpan[], window: Window): Converted {
  const steps: Step[] = [];
  const reasons = new Map<string, number>();
  const reject = (reason: string) => reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  const maxSteps = window.maxSteps ?? Infinity;
  let ignored = 0;
  let accepted = 0;
  let thresholdsRefused = 0;
  // Each span read once, for its steps and for the coverage.
  const readings = spans.map(readSpan);
  spans.forEach((span, i) => {
    // Without the queues: withQueueAnomalies completes the steps where they are known.
    const n = normalise(span, window, undefined, readings[i]);
    if (n.kind === 'steps' && steps.length + n.steps.length > maxSteps)
      reject(
        `the request would store more than ${maxSteps} journey steps (a batch receive stores one or two per linked message): send fewer spans per request`,
      );
    else if (n.kind === 'steps') {
      accepted++;
      if (n.thresholdRefused) thresholdsRefused++;
      steps.push(...n.steps);
    } else if (n.kind === 'ignored') ignored++;
    else reject(n.reason);
  });
  return {
    spans: spans.length,
    steps,
    accepted,
    ignored,
    rejected: [...reasons],
    thresholdsRefused,
    coverage: tallyCoverage(spans, readings),
  };
}

/**
 * What depends on what the exporter knows about the broker: where a message went, where the span
 * did not name it (where.ts), then the anomalies that read the queues (a reject dead-lettered or
 * discarded, a delivery out of a dead-letter queue), as normalise() with those queues would have
 * set them. Only deliveries and settles read the queues.
 */
export function withQueueAnomalies(
  steps: Step[],
  queues: QueueLookup,
  exchanges: ExchangeIndex | null = null,
): void {
  if (exchanges) withWhere(steps, exchanges);
  for (const step of steps)
    if (step.stage === 'deliver' || step.stage === 'settle')
      step.anomaly = stepAnomaly(step.stage, step.attrs, queues);
}
