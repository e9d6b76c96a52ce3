// A bulk replay job's progress, apart from the SQL that saves it (jobs.ts): each replay's result
// counted, the latest results kept, and the rule that stops a job whose replays come back
// dead-lettered (the cause was not fixed).
import type { Job } from './job-rows.js';
import type { ReplayResult } from './replay.js';

/** The latest results a job keeps. */
export const KEPT_RESULTS = 100;

/** Counts one replay into its job; a replay that went out adds its id to `replayIds`. */
export function countReplay(
  job: Job,
  replayIds: string[],
  r: ReplayResult & { replayId?: string },
): void {
  job.done++;
  if (r.outcome === 'replayed') {
    job.replayed++;
    if (r.replayId) replayIds.push(r.replayId);
  } else job.failed++;
  job.results.push({ id: r.id, eventId: r.eventId, outcome: r.outcome, detail: r.detail });
  if (job.results.length > KEPT_RESULTS) job.results.shift();
}

export interface StopRule {
  /** Replays out before the share is judged. */
  minReplays: number;
  /** Share of them dead-lettered again past which the job stops. */
  stopAfterFailedShare: number;
  windowSeconds: number;
}

/** Why the job must stop, when more than the rule's share of its replays failed again; else null. */
export function failedAgainStop(
  rule: StopRule,
  replays: number,
  failedAgain: number,
): string | null {
  if (replays < rule.minReplays || failedAgain / replays <= rule.stopAfterFailedShare) return null;
  return `${failedAgain} of ${replays} replays were dead-lettered again within ${rule.windowSeconds} s (more than ${Math.round(rule.stopAfterFailedShare * 100)} %): the cause is not fixed`;
}
