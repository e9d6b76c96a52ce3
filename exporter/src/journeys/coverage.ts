// Instrumentation coverage: for every span received, what journeys could read from it. Per
// service, stage and instrumentation (journeys/profiles/): spans, how many carried an event id, and which
// facts journeys rely on were missing (event id, queue, redelivery, settle), each with the line of
// code that closes the gap in that SDK. Counted since the exporter started, in memory (served at
// GET /api/coverage) and as metrics (acktrail_coverage_*, by service and stage). Services are a
// bounded label.
import { ATTR } from '@acktrail/conventions';
import { Counter, type Registry } from 'prom-client';
import { BoundedLabel } from '../labels.js';
import type { Stage } from './model/steps.js';
import {
  AGGREGATE_FIX,
  BY_ATTRIBUTE,
  rowIn,
  type Check,
  type CoverageTally,
  type Row,
} from './spans/index.js';
import { PROFILES, type ProfileId } from './spans/index.js';
import { docsUrl } from '../docs.js';
import { counter } from '../metrics/catalogue.js';

export { tallyCoverage, type CoverageTally } from './spans/index.js';

export interface CoverageGap {
  attribute: string;
  /** Attribute names journeys read it from, first found. */
  keys: readonly string[];
  spans: number;
  optional: boolean;
  fix: string;
}

/** What decides a service's settles: its spans, or the broker's evidence, and what would record them. */
export interface SettleCoverage {
  /** Which settles its spans record, in words. */
  recorded: string;
  /** Which are inferred and from what; null: none are. */
  inferred: string | null;
  /** The one change that turns the inference into a record; null: nothing to change. */
  toRecord: string | null;
}

export interface CoverageRow {
  service: string;
  stage: Stage;
  /** The instrumentation that wrote the spans, as its users name it, and acktrail's id of it. */
  sdk: { id: ProfileId; name: string; source: string };
  spans: number;
  withEventId: number;
  gaps: CoverageGap[];
  /** On a deliver row: what decides how its deliveries were settled. */
  settles?: SettleCoverage;
}

const EVIDENCE = `the broker's evidence: x-death on a parked copy, a delivery out of the dead-letter queue, a later delivery of the message; where none comes within journeys.settleEvidenceSeconds, no dead letter where acktrail would see one and the queue's counters (${docsUrl('adopting.md', 'settles-the-spans-do-not-record')})`;
const PARK =
  "park the queue's dead-letter queue (deadLetters.queues) so that a dead letter is seen, or";

/** What decides a delivery's settle for this instrumentation (its profile's recording). */
export function settleCoverage(id: ProfileId): SettleCoverage {
  const p = PROFILES[id];
  switch (p.settle) {
    case 'span-end':
    case 'settle-spans':
      return {
        recorded: 'every ack, nack and reject, with its requeue flag',
        inferred: null,
        toRecord: null,
      };
    case 'span-status':
      return {
        recorded: "acks and nacks with requeue (the receive span's status)",
        inferred:
          "a fault moved to <queue>_error: from its handler span's error, then the receive's ok",
        toRecord: null,
      };
    case 'settle-spans-in-handler':
      return {
        recorded: 'acks, nacks and rejects made in the handler, not their requeue flag',
        inferred: `a nack's or reject's requeue, from ${EVIDENCE}`,
        toRecord: `${PARK} ${p.fix.settle}`,
      };
    case 'none':
      return {
        recorded: 'none',
        inferred: `every settle, from ${EVIDENCE}`,
        toRecord: `${PARK} ${p.fix.settle}`,
      };
  }
}

/** A service whose spans show that it samples its traces, and what that does to acktrail's answers. */
export interface ServiceSampling {
  service: string;
  /** Spans its sampler dropped that @acktrail/instrument's recording sampler sent. */
  recordedOnly: number;
  /** Spans with a sampling threshold in their tracestate (ot=th). */
  withThreshold: number;
  /** In words. */
  says: string;
}

export interface CoverageReport {
  since: string;
  rows: CoverageRow[];
  /** The services that sample, by what their spans show. */
  sampling: ServiceSampling[];
}

function samplingWords(recordedOnly: number, withThreshold: number): string {
  if (recordedOnly > 0)
    return `samples its traces; acktrail's recording sampler sent the ${recordedOnly} span(s) its sampler dropped: journeys and span-derived counts are whole`;
  return `samples its traces (a threshold in the tracestate of ${withThreshold} span(s)): span-derived counters add each span's adjusted count, and a message whose trace it dropped has no journey (${docsUrl('adopting.md', 'sampling')})`;
}

export class Coverage {
  private readonly rows = new Map<string, Row>();
  private readonly since = new Date();
  private readonly services: BoundedLabel;
  private readonly spans: Counter<'service' | 'stage'>;
  private readonly withEventId: Counter<'service' | 'stage'>;
  private readonly missing: Counter<'service' | 'stage' | 'attribute'>;

  constructor(registry: Registry, maxServices = 100) {
    const registers = [registry];
    this.services = new BoundedLabel(maxServices, { registry, label: 'service' });
    this.spans = new Counter({ ...counter('acktrail_coverage_spans_total'), registers });
    this.withEventId = new Counter({
      ...counter('acktrail_coverage_spans_with_event_id_total'),
      registers,
    });
    this.missing = new Counter({
      ...counter('acktrail_coverage_attribute_missing_total'),
      registers,
    });
  }

  /** Adds what tallyCoverage counted. */
  add(tally: CoverageTally): void {
    for (const t of tally) {
      const service = this.services.of(t.service);
      const { stage, sdk } = t;
      const row = rowIn(this.rows, service, stage, sdk);
      row.settles += t.settles;
      if (t.spans === 0) continue; // a row only for the settles of a service's deliveries
      row.spans += t.spans;
      row.withEventId += t.withEventId;
      row.recordedOnly += t.recordedOnly;
      row.withThreshold += t.withThreshold;
      this.spans.inc({ service, stage }, t.spans);
      if (t.withEventId > 0) this.withEventId.inc({ service, stage }, t.withEventId);
      for (const [attribute, n] of t.missing) {
        row.missing.set(attribute, (row.missing.get(attribute) ?? 0) + n);
        this.missing.inc({ service, stage, attribute }, n);
      }
    }
  }

  report(): CoverageReport {
    const rows = [...this.rows.values()]
      .filter((r) => r.spans > 0)
      .sort(
        (a, b) =>
          a.service.localeCompare(b.service) ||
          a.stage.localeCompare(b.stage) ||
          a.sdk.localeCompare(b.sdk),
      )
      .map((r): CoverageRow => {
        const profile = PROFILES[r.sdk];
        const gaps: CoverageGap[] = [...r.missing].map(([attribute, spans]) => {
          const c = BY_ATTRIBUTE.get(attribute as Check['attribute'])!;
          return {
            attribute,
            keys: c.keys,
            spans,
            optional: c.optional,
            fix: c.attribute === 'aggregate_id' ? AGGREGATE_FIX : profile.fix[c.attribute],
          };
        });
        if (r.stage === 'deliver' && r.settles < r.spans)
          gaps.push({
            attribute: 'settle',
            keys: [ATTR.settleOutcome],
            spans: r.spans - r.settles,
            optional: false,
            fix: profile.fix.settle,
          });
        gaps.sort((a, b) => Number(a.optional) - Number(b.optional) || b.spans - a.spans);
        return {
          service: r.service,
          stage: r.stage,
          sdk: { id: profile.id, name: profile.sdk, source: profile.source },
          spans: r.spans,
          withEventId: r.withEventId,
          gaps,
          ...(r.stage === 'deliver' ? { settles: settleCoverage(profile.id) } : {}),
        };
      });
    return { since: this.since.toISOString(), rows, sampling: this.sampling() };
  }

  private sampling(): ServiceSampling[] {
    const by = new Map<string, { recordedOnly: number; withThreshold: number }>();
    for (const r of this.rows.values()) {
      if (r.recordedOnly === 0 && r.withThreshold === 0) continue;
      const s = by.get(r.service) ?? { recordedOnly: 0, withThreshold: 0 };
      s.recordedOnly += r.recordedOnly;
      s.withThreshold += r.withThreshold;
      by.set(r.service, s);
    }
    return [...by]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([service, s]) => ({
        service,
        ...s,
        says: samplingWords(s.recordedOnly, s.withThreshold),
      }));
  }
}
