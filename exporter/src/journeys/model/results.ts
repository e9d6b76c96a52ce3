// What a consumer's own result word (acktrail.result) means. The words are the pipeline's, from
// its configuration (journeys.words.results): acktrail knows none of them. Without configured
// words every ack means the work was done, as it does for a pipeline that records no result.
import type { SettleOutcome } from '@acktrail/conventions';
import type { QueueFacts } from '../../broker/topology.js';

export interface ResultWords {
  /** The delivery did the work. Empty: every ack whose result is not listed below did. */
  done: readonly string[];
  /** The consumer found the work done before and only acked (a duplicate it ignored). */
  alreadyDone: readonly string[];
  /** The consumer skipped an event older than the version it had processed. */
  stale: readonly string[];
}

export const NO_RESULT_WORDS: ResultWords = { done: [], alreadyDone: [], stale: [] };

export type ResultMeaning = 'done' | 'done_before' | 'stale' | 'other' | 'none';

export function meaningOf(result: unknown, words: ResultWords): ResultMeaning {
  if (typeof result !== 'string') return 'none';
  if (words.alreadyDone.includes(result)) return 'done_before';
  if (words.stale.includes(result)) return 'stale';
  if (words.done.includes(result)) return 'done';
  return 'other';
}

/**
 * Whether a settle means the event's work was done by this delivery: an ack whose result is a
 * done word, or, where no done word is configured, an ack whose result says nothing else. An
 * ack out of a dead-letter queue (`queue`: its facts, where known) is a drain, never the work.
 */
export function isDone(
  outcome: SettleOutcome | null,
  result: unknown,
  words: ResultWords,
  queue: QueueFacts | null,
): boolean {
  if (outcome !== 'ack' || queue?.role === 'dead_letter') return false;
  const meaning = meaningOf(result, words);
  return words.done.length > 0 ? meaning === 'done' : meaning === 'none' || meaning === 'other';
}
