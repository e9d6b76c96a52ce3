// A bulk replay job as dead_letter_jobs holds it (migrations/004_dead_letter_trust.sql) and as
// the API shows it (jobs.ts runs the SQL).
import type { ReplayResult } from './replay.js';

export interface Job {
  id: string;
  actor: string;
  actorVerified: boolean;
  total: number;
  done: number;
  replayed: number;
  /** Replays that did not go out (not parked, refused, returned, nacked, an error). */
  failed: number;
  /** Replayed messages that came back to a dead-letter queue. */
  failedAgain: number;
  state: 'running' | 'done' | 'stopped' | 'interrupted';
  stopReason: string | null;
  startedAt: string;
  finishedAt: string | null;
  /** The latest results, at most 100. */
  results: ReplayResult[];
}

export const COLUMNS = `id::text, actor, actor_verified, total, done, replayed, failed, failed_again, state,
  stop_reason, started_at, finished_at, results`;

export interface Row {
  id: string;
  actor: string;
  actor_verified: boolean;
  total: number;
  done: number;
  replayed: number;
  failed: number;
  failed_again: number;
  state: Job['state'];
  stop_reason: string | null;
  started_at: Date;
  finished_at: Date | null;
  results: ReplayResult[];
}

export const toJob = (r: Row): Job => ({
  id: r.id,
  actor: r.actor,
  actorVerified: r.actor_verified,
  total: r.total,
  done: r.done,
  replayed: r.replayed,
  failed: r.failed,
  failedAgain: r.failed_again,
  state: r.state,
  stopReason: r.stop_reason,
  startedAt: r.started_at.toISOString(),
  finishedAt: r.finished_at?.toISOString() ?? null,
  results: r.results,
});
