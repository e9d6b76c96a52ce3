// Replay and discard of parked dead letters. A replay publishes the message again, with its own
// message_id, properties and body, to where it was first published, when that is an allowed
// target (targets.ts), without the headers that add routes (CC, BCC), with headers naming the
// replay and who asked, on a confirm channel with
// mandatory. The row is marked replayed only after the broker confirmed it; a returned or nacked
// replay stays parked with the error. Two replays of one message at once publish it once (the
// row is claimed under its lock). Each replay is a journey step of its event, and every action
// is in the audit log. Bulk replays run as jobs at a configured rate, and stop by themselves when
// too many of their messages come back dead-lettered (the cause was not fixed).
import { randomBytes, randomUUID } from 'node:crypto';
import { deserialize } from 'node:v8';
import type { Options } from 'amqplib';
import type { ValidatedConfig } from '../../config.js';
import type { JourneyWriter } from '../../journeys/writer.js';
import { STEP_ATTR, type Step } from '../../journeys/model/steps.js';
import { errorMessage, type Logger } from '../../log.js';
import type { DeadLetterBroker } from '../park/broker.js';
import {
  DEATH_HEADERS,
  REPLAY_HEADERS,
  UNSENT_PROPERTIES,
  isRoutingHeader,
} from '../model/message.js';
import { planned, type PlannedTarget } from './planned.js';
import { replayTarget, type Topologies, type Topology } from './targets.js';
import type { DeadLetterMetrics } from '../model/metrics.js';
import { UnknownKeyError, keyId, unseal } from '../model/seal.js';
import type { DeadLetter, DeadLetterStore } from '../store/store.js';

type Settings = ValidatedConfig['deadLetters'];

export type ReplayOutcome =
  'replayed' | 'not_parked' | 'no_target' | 'refused' | 'unroutable' | 'nacked' | 'error';

/** What a bulk replay would do, before it runs: messages per target, and those refused. */
export interface ReplayPlan {
  total: number;
  targets: PlannedTarget[];
  refused: { reason: string; count: number; ids: string[] }[];
  /** Selected but not parked (replayed, discarded, replaying) now. */
  notParked: number;
}

export interface ReplayResult {
  id: string;
  eventId: string | null;
  outcome: ReplayOutcome;
  detail: string | null;
}

interface Sealed {
  properties: Options.Publish;
  headers: Record<string, unknown>;
  body: Buffer;
}

/** Who acts, for the audit log: a name, and whether a trusted proxy verified it. */
export interface Actor {
  name: string;
  verified: boolean;
}

export class Replayer {
  constructor(
    private readonly store: DeadLetterStore,
    private readonly broker: DeadLetterBroker,
    /** The current key first, then earlier ones (ACKTRAIL_DEAD_LETTER_KEYS) to open what they sealed. */
    private readonly keys: Buffer[],
    private readonly steps: JourneyWriter | null,
    private readonly metrics: DeadLetterMetrics,
    private readonly settings: Settings,
    private readonly topologies: Topologies | null,
    private readonly log: Logger,
  ) {}

  /** The broker's topology as it is now: each decision reads the latest. */
  private get topology(): Topology | null {
    return this.topologies?.current ?? null;
  }

  /** Headers that described the last failure (the reason headers): a replay starts without. */
  private get failureHeaders(): readonly string[] {
    return this.settings.reasonHeaders;
  }

  /** Where each of these messages would go, grouped, without publishing anything. */
  async plan(ids: string[]): Promise<ReplayPlan> {
    const rows = await this.store.replayFacts(ids);
    const targets = new Map<string, ReplayPlan['targets'][number]>();
    const refused = new Map<string, ReplayPlan['refused'][number]>();
    for (const row of rows) {
      const d = replayTarget(row, this.settings, this.topology);
      if (d.allowed) {
        const { exchange, routingKey, source } = d.target;
        const k = JSON.stringify([exchange, routingKey, source, d.basis]);
        const t = targets.get(k) ?? {
          ...planned(d, row.queue, this.topology, row.vhost),
          count: 0,
        };
        t.count++;
        targets.set(k, t);
      } else {
        const r = refused.get(d.reason) ?? { reason: d.reason, count: 0, ids: [] };
        r.count++;
        if (r.ids.length < 10) r.ids.push(row.id);
        refused.set(d.reason, r);
      }
    }
    const byCount = <T extends { count: number }>(m: Map<string, T>) =>
      [...m.values()].sort((a, b) => b.count - a.count);
    return {
      total: ids.length,
      targets: byCount(targets),
      refused: byCount(refused),
      notParked: ids.length - rows.length,
    };
  }

  /** The message as it was parked, for an operator. */
  async content(id: string): Promise<Sealed | null> {
    const row = await this.store.sealed(id);
    if (!row) return null;
    return this.open(row.keyId, row.sealed, row.queue);
  }

  private open(kid: string, sealed: Buffer, queue: string): Sealed {
    const key = this.keys.find((k) => keyId(k) === kid);
    if (!key) throw new UnknownKeyError(kid, keyId(this.keys[0]!));
    return deserialize(unseal(key, sealed, `${this.broker.vhost}/${queue}`)) as Sealed;
  }

  /** Replays one parked message; never throws (the outcome says what happened). */
  async replayOne(id: string, actor: Actor): Promise<ReplayResult & { replayId?: string }> {
    let row: Awaited<ReturnType<DeadLetterStore['claim']>>;
    try {
      row = await this.store.claim(id);
    } catch (err) {
      return { id, eventId: null, outcome: 'error', detail: errorMessage(err) };
    }
    if (!row) {
      const result = { id, eventId: null, outcome: 'not_parked' as const, detail: null };
      await this.audit(actor, 'replay', null, result);
      return result;
    }
    const result = await this.publish(row, actor);
    if (result.outcome === 'replayed') await this.store.replayed(id);
    else await this.store.replayFailed(id, `${result.outcome}: ${result.detail ?? ''}`);
    this.metrics.replays.inc({
      queue: row.queue,
      outcome:
        result.outcome === 'replayed'
          ? 'confirmed'
          : result.outcome === 'no_target'
            ? 'refused'
            : result.outcome,
    });
    await this.audit(actor, 'replay', row, result);
    return result;
  }

  private async publish(
    row: DeadLetter & { keyId: string; sealed: Buffer },
    actor: Actor,
  ): Promise<ReplayResult & { replayId?: string }> {
    const base = { id: row.id, eventId: row.eventId };
    const decision = replayTarget(row, this.settings, this.topology);
    if (!decision.allowed)
      return {
        ...base,
        outcome: decision.target ? 'refused' : 'no_target',
        detail: decision.reason,
      };
    const target = decision.target;
    try {
      const message = this.open(row.keyId, row.sealed, row.queue);
      const replayId = randomUUID();
      const at = new Date();
      const traceId = randomBytes(16).toString('hex');
      const spanId = randomBytes(8).toString('hex');
      const headers = Object.fromEntries(
        Object.entries(message.headers).filter(
          ([k]) =>
            !DEATH_HEADERS.includes(k) &&
            !this.failureHeaders.includes(k) &&
            // A replay goes to its one target only.
            !isRoutingHeader(k) &&
            k !== 'tracestate',
        ),
      );
      const outcome = await this.broker.publish(
        target.exchange,
        target.routingKey,
        message.body,
        {
          ...Object.fromEntries(
            Object.entries(message.properties).filter(([k]) => !UNSENT_PROPERTIES.includes(k)),
          ),
          headers: {
            ...headers,
            // The delivery of the replayed copy is a child of the replay step.
            traceparent: `00-${traceId}-${spanId}-01`,
            [REPLAY_HEADERS.id]: replayId,
            [REPLAY_HEADERS.by]: actor.name,
            [REPLAY_HEADERS.at]: at.getTime(),
          },
        },
        replayId,
      );
      if (outcome !== 'confirmed')
        return {
          ...base,
          outcome,
          detail:
            outcome === 'unroutable'
              ? `no queue is bound to exchange "${target.exchange}" with routing key "${target.routingKey}"`
              : 'the broker refused the message (nack)',
        };
      await this.journeyStep(row, actor, target, at, traceId, spanId);
      return {
        ...base,
        outcome: 'replayed',
        detail: `to exchange "${target.exchange}", routing key "${target.routingKey}"`,
        replayId,
      };
    } catch (err) {
      return { ...base, outcome: 'error', detail: errorMessage(err) };
    }
  }

  /** The replay as a step of the event's journey; a failure here is logged, not fatal. */
  private async journeyStep(
    row: DeadLetter,
    actor: Actor,
    target: { exchange: string; routingKey: string },
    at: Date,
    traceId: string,
    spanId: string,
  ): Promise<void> {
    // A message whose spans record no id has its journey keyed by its trace context.
    const eventId = row.eventId ?? row.messageKey;
    if (!this.steps || !eventId) return;
    const step: Step = {
      eventId,
      timeUs: at.getTime() * 1000,
      durationUs: 0,
      stage: 'replay',
      service: 'acktrail',
      traceId,
      spanId,
      parentSpanId: null,
      name: `replay from ${row.queue}`,
      status: 'ok',
      statusMessage: null,
      aggregateType: null,
      aggregateId: null,
      anomaly: null,
      attrs: {
        [STEP_ATTR.replayBy]: actor.name,
        [STEP_ATTR.replayQueue]: row.queue,
        'messaging.destination.name': target.exchange,
        'messaging.rabbitmq.destination.routing_key': target.routingKey,
      },
    };
    const out = await this.steps.writeSteps([step]);
    if (out.kind !== 'stored')
      this.log.warn({ err: out.message, event_id: row.eventId }, 'replay step not stored');
  }

  async audit(
    actor: Actor,
    action: 'replay' | 'discard' | 'read_body',
    row: DeadLetter | null,
    result: { id: string; eventId: string | null; outcome: string; detail: string | null },
  ): Promise<void> {
    await this.store
      .audit({
        actor: actor.name,
        actorVerified: actor.verified,
        action,
        deadLetterId: result.id,
        eventId: row?.eventId ?? result.eventId,
        queue: row?.queue ?? null,
        outcome: result.outcome,
        detail: result.detail,
      })
      .catch((err: unknown) => {
        this.log.error(
          { err: errorMessage(err), action, outcome: result.outcome },
          'audit entry not written',
        );
      });
  }

  /** Discards parked messages with a reason; returns how many were parked. */
  async discard(ids: string[], actor: Actor, reason: string): Promise<number> {
    const rows = await this.store.discard(ids);
    for (const row of rows) {
      this.metrics.discards.inc({ queue: row.queue });
      await this.audit(actor, 'discard', row, {
        id: row.id,
        eventId: row.eventId,
        outcome: 'discarded',
        detail: reason,
      });
    }
    return rows.length;
  }
}
