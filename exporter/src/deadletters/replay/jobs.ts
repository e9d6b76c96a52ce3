// Bulk replays as jobs that live in the store (dead_letter_jobs): any replica lists them and
// stops them, at most replay.maxRunningJobs run at once across replicas, and the replica that
// runs one writes its progress and reads its stop flag every CHECK_EVERY_MS, so a stop asked of
// any replica reaches it. A job whose replica went away (no progress for STALE_SECONDS) is
// marked interrupted. Each job replays at the configured rate and stops by itself when too many
// of its replays come back dead-lettered (the cause was not fixed).
import { withTransaction, type Database } from '../../db/checkout.js';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { ValidatedConfig } from '../../config.js';
import { errorMessage, type Logger } from '../../log.js';
import type { Actor, Replayer } from './replay.js';
import type { DeadLetterStore } from '../store/store.js';
import { COLUMNS, toJob, type Job, type Row } from './job-rows.js';
import { countReplay, failedAgainStop } from './progress.js';

export type { Job };

const LISTED_JOBS = 50;
const CHECK_EVERY_MS = 500;
const STALE_SECONDS = 60;
/** Serialises job starts across replicas, so the running cap holds. */
const START_LOCK = 7_461_200_005;

export class JobLimitReached extends Error {
  readonly code = 'JOB_LIMIT';
}

interface Progress {
  job: Job;
  replayIds: string[];
  stop: boolean;
  /** This exporter is shutting down: the job ends as interrupted, not stopped. */
  leaving?: boolean;
}

export class BulkReplays {
  /** The jobs this exporter runs, each with its loop. */
  private readonly running = new Map<Progress, Promise<void>>();
  constructor(
    private readonly pool: Database,
    private readonly replayer: Replayer,
    private readonly store: DeadLetterStore,
    private readonly settings: ValidatedConfig['deadLetters']['replay'],
    private readonly log: Logger,
    /** The API's reads (a job, the list): the primary's read pool, apart from the writes. */
    private readonly reads: Database = pool,
  ) {}

  /**
   * Starts replaying these messages in the background; throws JobLimitReached when
   * maxRunningJobs are running (on any replica).
   */
  async start(ids: string[], actor: Actor): Promise<Job> {
    const row = await withTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [START_LOCK]);
      await this.markInterrupted(client);
      const res = await client.query<Row>(
        `INSERT INTO dead_letter_jobs (id, actor, actor_verified, ids, total, state)
         SELECT $1, $2, $3, $4::bigint[], $5, 'running'
          WHERE (SELECT count(*) FROM dead_letter_jobs WHERE state = 'running') < $6
         RETURNING ${COLUMNS}`,
        [randomUUID(), actor.name, actor.verified, ids, ids.length, this.settings.maxRunningJobs],
      );
      return res.rows[0];
    });
    if (!row)
      throw new JobLimitReached(
        `${this.settings.maxRunningJobs} bulk replays are running (deadLetters.replay.maxRunningJobs): wait for one to end, or stop one`,
      );
    const job = toJob(row);
    const progress: Progress = { job, replayIds: [], stop: false };
    const run = this.run(progress, ids, actor)
      .catch((err: unknown) => {
        this.log.error({ err: errorMessage(err), job: job.id }, 'bulk replay failed');
      })
      .finally(() => this.running.delete(progress));
    this.running.set(progress, run);
    return job;
  }

  /**
   * Ends this exporter's running jobs after the replay in hand, as it shuts down: each is saved
   * as interrupted, with the reason, and can be started again from any replica.
   */
  async stopAll(): Promise<void> {
    for (const p of this.running.keys()) {
      p.stop = true;
      p.leaving = true;
      p.job.stopReason ??= 'its exporter stopped';
    }
    await Promise.all(this.running.values());
  }

  async job(id: string): Promise<Job | null> {
    const res = await this.reads.query<Row>(
      `SELECT ${COLUMNS} FROM dead_letter_jobs WHERE id = $1`,
      [id],
    );
    return res.rows[0] ? toJob(res.rows[0]) : null;
  }

  /** The running jobs and the latest others, newest first. */
  async list(): Promise<Job[]> {
    const res = await this.reads.query<Row>(
      `SELECT ${COLUMNS} FROM dead_letter_jobs
        WHERE state = 'running' OR id IN (
          SELECT id FROM dead_letter_jobs ORDER BY started_at DESC LIMIT $1)
        ORDER BY started_at DESC`,
      [LISTED_JOBS],
    );
    return res.rows.map(toJob);
  }

  /**
   * Asks a running job to stop after the replay in hand; its replica reads the flag within
   * CHECK_EVERY_MS. A job whose replica went away is marked stopped at once.
   */
  async stop(id: string, actor: Actor): Promise<Job | null> {
    const res = await this.pool.query<Row>(
      `UPDATE dead_letter_jobs SET stop_requested = true,
              stop_reason = COALESCE(stop_reason, 'stopped by ' || $3),
              state = CASE WHEN heartbeat_at < now() - make_interval(secs => $2)
                           THEN 'stopped' ELSE state END,
              finished_at = CASE WHEN heartbeat_at < now() - make_interval(secs => $2)
                                 THEN now() ELSE finished_at END
        WHERE id = $1 AND state = 'running'
        RETURNING ${COLUMNS}`,
      [id, STALE_SECONDS, actor.name],
    );
    const stopped = res.rows[0];
    if (!stopped) return this.job(id);
    // Audited like a replay: who stopped which job, and how far it had come.
    await this.store.audit({
      actor: actor.name,
      actorVerified: actor.verified,
      action: 'stop_replay_job',
      deadLetterId: null,
      eventId: null,
      queue: null,
      outcome: 'stop_requested',
      detail: `job ${id}: ${stopped.done} of ${stopped.total} done`,
    });
    return toJob(stopped);
  }

  private async markInterrupted(client: pg.PoolClient): Promise<void> {
    await client.query(
      `UPDATE dead_letter_jobs SET state = 'interrupted', finished_at = now(),
              stop_reason = COALESCE(stop_reason, 'its exporter went away')
        WHERE state = 'running' AND heartbeat_at < now() - make_interval(secs => $1)`,
      [STALE_SECONDS],
    );
  }

  /** Writes the job's progress and reads whether someone asked it to stop. */
  private async save(p: Progress, final = false): Promise<void> {
    const j = p.job;
    const res = await this.pool.query<{ stop_requested: boolean; stop_reason: string | null }>(
      `UPDATE dead_letter_jobs SET done = $2, replayed = $3, failed = $4, failed_again = $5,
              results = $6::jsonb, heartbeat_at = now(),
              stop_reason = COALESCE(stop_reason, $7::text),
              state = CASE WHEN $8::boolean THEN $9::text ELSE state END,
              finished_at = CASE WHEN $8::boolean THEN now() ELSE finished_at END
        WHERE id = $1 RETURNING stop_requested, stop_reason`,
      [
        j.id,
        j.done,
        j.replayed,
        j.failed,
        j.failedAgain,
        JSON.stringify(j.results),
        j.stopReason,
        final,
        j.state,
      ],
    );
    const r = res.rows[0];
    if (r?.stop_requested && !p.stop) {
      p.stop = true;
      j.stopReason = r.stop_reason;
    }
  }

  private async run(p: Progress, ids: string[], actor: Actor): Promise<void> {
    const s = this.settings;
    const { job } = p;
    const gapMs = 1000 / s.ratePerSecond;
    const started = Date.parse(job.startedAt);
    let savedAt = 0;
    this.log.info({ job: job.id, total: ids.length, actor: actor.name }, 'bulk replay started');
    for (const id of ids) {
      if (p.stop) break;
      const t0 = Date.now();
      countReplay(job, p.replayIds, await this.replayer.replayOne(id, actor));
      if (Date.now() - savedAt >= CHECK_EVERY_MS) {
        savedAt = Date.now();
        if (p.replayIds.length > 0) await this.failingAgain(p, started);
        await this.save(p).catch((err: unknown) => {
          this.log.warn({ err: errorMessage(err), job: job.id }, 'bulk replay progress not saved');
        });
      }
      if (job.done % 100 === 0)
        this.log.info({ job: job.id, done: job.done, total: job.total }, 'bulk replay progress');
      const wait = gapMs - (Date.now() - t0);
      if (wait > 0) await sleep(wait);
    }
    job.state = p.leaving ? 'interrupted' : p.stop ? 'stopped' : 'done';
    await this.save(p, true);
    this.log.info(
      {
        job: job.id,
        done: job.done,
        replayed: job.replayed,
        failed_again: job.failedAgain,
        state: job.state,
        reason: job.stopReason,
      },
      'bulk replay ended',
    );
  }

  /** Stops the job when too many of its replays came back dead-lettered within the window. */
  private async failingAgain(p: Progress, started: number): Promise<void> {
    const s = this.settings;
    const { job } = p;
    try {
      job.failedAgain = await this.store.failedAgain(
        p.replayIds,
        Math.max(started, Date.now() - s.windowSeconds * 1000),
      );
    } catch (err) {
      this.log.warn({ err: errorMessage(err), job: job.id }, 'cannot count failed replays');
      return;
    }
    const reason = failedAgainStop(s, p.replayIds.length, job.failedAgain);
    if (reason) {
      p.stop = true;
      job.stopReason = reason;
    }
  }
}
