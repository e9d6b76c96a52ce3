// A cluster's queues from its nodes' answers: every queue exactly once, whatever node leads it.
// Each node reports the queues it leads; while a leader moves, two nodes may report one queue for
// a moment (or none). The node the management API last named as the queue's leader wins; without
// one, the first node by name, so that every replica of the exporter picks the same.
import type { NodeDepths, QueueDepth } from './detailed.js';

export interface NodeAnswer extends NodeDepths {
  /** The node's name, as the exporter labels it. */
  name: string;
}

/** `leaderOf`: the node that leads the queue as last listed, or null. */
export function mergeNodes(
  answers: readonly NodeAnswer[],
  leaderOf: (vhost: string, queue: string) => string | null,
): Map<string, QueueDepth> {
  if (answers.length === 1) return answers[0]!.queues;
  const merged = new Map<string, QueueDepth>();
  const byName = [...answers].sort((a, b) => a.name.localeCompare(b.name));
  for (const answer of byName) {
    for (const [key, depth] of answer.queues) {
      if (!merged.has(key) || answer.name === leaderOf(depth.vhost, depth.queue))
        merged.set(key, depth);
    }
  }
  return merged;
}
