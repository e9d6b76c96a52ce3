// Metrics derived from the steps as they are stored. Only steps that were new count, so an SDK
// that retries an export never inflates them. Labels are bounded: queue, exchange and routing key
// come from the pipeline's topology, and free-text dead-letter reasons fold into "other" past a
// limit. Stage durations, redeliveries, dead letters and duplicate publishes carry exemplars: the
// trace and event of the latest step each bucket or series counted (exposition/exemplars.ts).
import { ATTR, isPublish } from '@acktrail/conventions';
import { Counter, Histogram, type Registry } from 'prom-client';
import { BoundedLabel } from '../labels.js';
import {
  NO_RESULT_WORDS,
  ORDERING_KINDS,
  fateOfStored,
  isDone,
  outcomeOf,
  type ResultWords,
} from './model/index.js';
import type { QueueLookup } from '../broker/topology.js';
import type { WriteResult } from './store/index.js';
import { Exemplars, type ExemplarIds } from '../exposition/exemplars.js';
import { STEP_ATTR } from './model/steps.js';
import { bucketsOf, counter, histogram } from '../metrics/catalogue.js';

/** The names the broker lists, as the journey metrics' labels read them. */
export interface BrokerNames {
  /** Whether the broker's topology was read at least once. */
  loaded(): boolean;
  /** The queues it lists (each name once). */
  names(): string[];
  has(queue: string): boolean;
  hasExchange(exchange: string): boolean;
}

/** No broker topology: nothing listed, so labels keep the (bounded) names spans give. */
export const NO_BROKER: BrokerNames = {
  loaded: () => false,
  names: () => [],
  has: () => false,
  hasExchange: () => false,
};

/** The stage histogram's buckets: they place each stage's exemplar too. */
const STAGE_BUCKETS = bucketsOf('acktrail_stage_duration_seconds');

export class JourneyMetrics {
  private readonly stageDuration: Histogram<'stage'>;
  private readonly stageChildren = new Map<string, ReturnType<Histogram<'stage'>['labels']>>();
  private readonly duplicatePublishes: Counter;
  private readonly redeliveries: Counter<'queue'>;
  private readonly deadLettered: Counter<'queue' | 'reason'>;
  private readonly unroutable: Counter<'exchange' | 'routing_key'>;
  private readonly rejected: Counter<'queue' | 'fate'>;
  private readonly stored: Counter;
  private readonly ordering: Counter<'kind'>;
  private readonly queues: BoundedLabel;
  private readonly reasons: BoundedLabel;
  private readonly routes: BoundedLabel;
  /** Spans whose sampling threshold claimed more than journeys.maxAdjustedCount. */
  readonly thresholdsRefused: Counter;

  /**
   * `queueFacts`: what the exporter knows about a queue (its dead-letter exchange); `broker`: the
   * queues and exchanges the broker lists (a label takes no other name; reject series of its
   * queues start at 0 so that a first reject is an increase).
   */
  constructor(
    registry: Registry,
    private readonly queueFacts: QueueLookup = () => null,
    private readonly broker: BrokerNames = NO_BROKER,
    private readonly exemplars: Exemplars = new Exemplars(),
    /** What the pipeline's result words mean: which ack ends the `end_to_end` duration. */
    private readonly words: ResultWords = NO_RESULT_WORDS,
  ) {
    const registers = [registry];
    this.queues = new BoundedLabel(200, { registry, label: 'queue' });
    this.reasons = new BoundedLabel(20, { registry, label: 'dead_letter_reason' });
    this.routes = new BoundedLabel(50, { registry, label: 'exchange_or_routing_key' });
    this.stageDuration = new Histogram({
      ...histogram('acktrail_stage_duration_seconds'),
      registers,
    });
    this.duplicatePublishes = new Counter({
      ...counter('acktrail_duplicate_publishes_total'),
      registers,
    });
    this.redeliveries = new Counter({ ...counter('acktrail_redeliveries_total'), registers });
    this.deadLettered = new Counter({ ...counter('acktrail_dead_lettered_total'), registers });
    this.unroutable = new Counter({ ...counter('acktrail_unroutable_publishes_total'), registers });
    this.rejected = new Counter({
      ...counter('acktrail_messages_rejected_total'),
      registers,
      collect: () => {
        this.startRejectSeries();
      },
    });
    this.ordering = new Counter({ ...counter('acktrail_aggregate_ordering_total'), registers });
    for (const kind of ORDERING_KINDS) this.ordering.inc({ kind }, 0);
    this.thresholdsRefused = new Counter({
      ...counter('acktrail_sampling_thresholds_refused_total'),
      registers,
    });
    this.thresholdsRefused.inc(0);
    this.stored = new Counter({ ...counter('acktrail_journey_steps_stored_total'), registers });
  }

  observe(result: WriteResult): void {
    this.stored.inc(result.inserted.length);
    for (const f of result.ordering) this.ordering.inc({ kind: f.kind });
    const newPublishes = new Map<string, number>();
    const publishIds = new Map<string, ExemplarIds>();
    for (const { step, parent } of result.inserted) {
      const a = step.attrs;
      const seconds = step.durationUs / 1e6;
      const queue = this.queueLabel(a[ATTR.queue]);
      const ids = { traceId: step.traceId, eventId: step.eventId };
      // The messages the step stands for: its adjusted count where its service samples (ot=th).
      const adjusted = a[STEP_ATTR.adjustedCount];
      const weight =
        typeof adjusted === 'number' && Number.isFinite(adjusted) && adjusted >= 1 ? adjusted : 1;
      switch (step.stage) {
        case 'outbox.publish':
        case 'publish':
          newPublishes.set(step.eventId, (newPublishes.get(step.eventId) ?? 0) + 1);
          publishIds.set(step.eventId, ids);
          if (a[ATTR.publishOutcome] === 'unroutable') {
            this.unroutable.inc(
              {
                exchange: this.exchangeLabel(a['messaging.destination.name']),
                routing_key: this.routes.of(
                  String(a['messaging.rabbitmq.destination.routing_key'] ?? ''),
                ),
              },
              weight,
            );
          } else {
            this.observeStage('publish_confirm', seconds, ids);
          }
          if (parent?.stage === 'outbox.insert')
            this.wait('outbox_wait', step.timeUs - parent.endUs, ids);
          break;
        case 'deliver':
          // A handler span is part of its delivery, which is counted on its own.
          if (a[STEP_ATTR.handler] === true) break;
          this.observeStage('processing', seconds, ids);
          if (a[ATTR.redelivered] === true) {
            this.redeliveries.inc({ queue }, weight);
            this.exemplars.inc('acktrail_redeliveries_total', { queue }, weight, ids);
          }
          if (parent && isPublish(parent.stage))
            // From the send, not the confirm: a consumer may get the message first.
            this.wait('queue_wait', step.timeUs - parent.timeUs, ids);
          break;
        case 'provider.call':
          this.observeStage('provider_call', seconds, ids);
          break;
        case 'dead_letter': {
          const labels = {
            queue,
            reason: this.reasons.of(String(a[ATTR.deadLetterReason] ?? 'unknown')),
          };
          this.deadLettered.inc(labels, weight);
          this.exemplars.inc('acktrail_dead_lettered_total', labels, weight, ids);
          break;
        }
        case 'settle': {
          const fate = fateOfStored(step);
          if (fate !== null) this.rejected.inc({ queue, fate }, weight);
          const startedUs = result.startedAt.get(step.eventId);
          const named = a[ATTR.queue];
          const facts = typeof named === 'string' ? this.queueFacts(named) : null;
          if (startedUs !== undefined && isDone(outcomeOf(a), a[ATTR.result], this.words, facts))
            this.wait('end_to_end', step.timeUs - startedUs, ids);
          break;
        }
        default:
          break;
      }
    }
    for (const [eventId, fresh] of newPublishes) {
      const total = result.publishes.get(eventId) ?? fresh;
      const duplicates = Math.min(fresh, total - 1);
      if (duplicates > 0) {
        this.duplicatePublishes.inc(duplicates);
        this.exemplars.inc(
          'acktrail_duplicate_publishes_total',
          {},
          duplicates,
          publishIds.get(eventId)!,
        );
      }
    }
  }

  /** Each work queue's reject series starts at 0, so that its first reject is an increase. */
  private startRejectSeries(): void {
    for (const name of this.broker.names()) {
      const facts = this.queueFacts(name);
      // Past the label cap a queue starts at its first reject, as "other".
      if (facts?.role !== 'work' || !this.queues.fits(name)) continue;
      const fate = facts.deadLetterExchange === null ? 'discarded' : 'dead_lettered';
      this.rejected.inc({ queue: this.queues.of(name), fate }, 0);
    }
  }

  /**
   * A dead letter from `queue` that dead-letter parking took and no span recorded the reject of
   * (its consumers' instrumentation records none): counted as the span would have been.
   */
  inferredDeadLetter(queue: string): void {
    this.rejected.inc({ queue: this.queueLabel(queue), fate: 'dead_lettered' });
  }

  /**
   * A queue's label: its name where the broker lists the queue (bounded: past the cap, "other");
   * "unknown" for a name the broker does not list or none, so that a sender naming made-up queues
   * takes no slot. Without the broker's topology (rabbitmq.enabled false) the names spans give,
   * bounded.
   */
  private queueLabel(name: unknown): string {
    if (typeof name !== 'string' || name === '') return 'unknown';
    if (this.broker.loaded() && !this.broker.has(name)) return 'unknown';
    return this.queues.of(name);
  }

  /** An exchange's label, by the same rule ('' is the default exchange). */
  private exchangeLabel(name: unknown): string {
    const exchange = typeof name === 'string' ? name : '';
    if (exchange !== '' && this.broker.loaded() && !this.broker.hasExchange(exchange))
      return 'unknown';
    return this.routes.of(exchange);
  }

  /** A wait between two services' clocks: skewed (negative) ones are not observed. */
  private wait(stage: string, us: number, ids: ExemplarIds): void {
    if (us >= 0) this.observeStage(stage, us / 1e6, ids);
  }

  private observeStage(stage: string, seconds: number, ids: ExemplarIds): void {
    this.stage(stage).observe(seconds);
    this.exemplars.observe(
      'acktrail_stage_duration_seconds',
      STAGE_BUCKETS,
      { stage },
      seconds,
      ids,
    );
  }

  /** The histogram's child for a stage, made once: labels are not hashed for every step. */
  private stage(name: string) {
    let child = this.stageChildren.get(name);
    if (!child) {
      child = this.stageDuration.labels({ stage: name });
      this.stageChildren.set(name, child);
    }
    return child;
  }
}
