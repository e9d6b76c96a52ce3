// Per-aggregate ordering: when deliveries carry acktrail.aggregate_version, the order in which one
// aggregate's versions were processed shows gaps (a version skipped), out-of-order processing (an
// older version after a newer one) and stale events the consumer skipped (its result is one of
// the pipeline's stale words, journeys.words.results.stale).
import { NO_RESULT_WORDS, meaningOf, type ResultWords } from './results.js';

export const ORDERING_KINDS = ['gap', 'out_of_order', 'stale'] as const;
export type OrderingKind = (typeof ORDERING_KINDS)[number];

export interface VersionedDelivery {
  eventId: string;
  aggregateId: string;
  version: number;
  timeUs: number;
  result: string | null;
}

export interface OrderingFinding {
  kind: OrderingKind;
  eventId: string;
  version: number;
  /** The highest version processed before this delivery. */
  after: number | null;
  /** For a gap: the versions never processed in between. */
  missing?: number[];
}

const MAX_MISSING_LISTED = 20;

/**
 * Walks deliveries in time order per aggregate, starting from the highest version already
 * processed (`priorMax`), and reports each departure from version order. A redelivery of the
 * version just processed is none.
 */
export function findOrdering(
  deliveries: VersionedDelivery[],
  words: ResultWords = NO_RESULT_WORDS,
  priorMax: ReadonlyMap<string, number> = new Map(),
): OrderingFinding[] {
  const max = new Map(priorMax);
  const findings: OrderingFinding[] = [];
  const sorted = [...deliveries].sort((a, b) => a.timeUs - b.timeUs);
  for (const d of sorted) {
    const before = max.get(d.aggregateId);
    const base = { eventId: d.eventId, version: d.version, after: before ?? null };
    if (meaningOf(d.result, words) === 'stale') {
      findings.push({ kind: 'stale', ...base });
      continue;
    }
    if (before !== undefined && d.version < before) {
      findings.push({ kind: 'out_of_order', ...base });
      continue;
    }
    if (before !== undefined && d.version > before + 1) {
      const missing: number[] = [];
      for (let v = before + 1; v < d.version && missing.length < MAX_MISSING_LISTED; v++)
        missing.push(v);
      findings.push({ kind: 'gap', ...base, missing });
    }
    if (before === undefined || d.version > before) max.set(d.aggregateId, d.version);
  }
  return findings;
}

export function countByKind(findings: OrderingFinding[]): Record<OrderingKind, number> {
  const counts = { gap: 0, out_of_order: 0, stale: 0 };
  for (const f of findings) counts[f.kind]++;
  return counts;
}
