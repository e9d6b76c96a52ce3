// /readyz: ready only when every part the configuration turns on works. Collectors report through
// their runner (they first run with the first scrape), the journey store and the Celery consumer
// through Health. 503 while starting, degraded (naming what is down) or shutting down.
import type { SourceStatus } from './collectors/index.js';
import type { PartStatus } from './health.js';

export type ReadyState = 'ready' | 'starting' | 'degraded' | 'stopping';

export interface Readiness {
  status: ReadyState;
  /** Collectors and parts that are down. */
  down: string[];
  /** Collectors and parts not checked yet. */
  pending: string[];
  /** Collectors that work but miss part of their source (a cluster node down): still ready. */
  partial: string[];
  sources: SourceStatus[];
  parts: PartStatus[];
}

export function readiness(
  sources: SourceStatus[],
  parts: PartStatus[],
  accepting: boolean,
): Readiness {
  const all = [
    ...sources.map((s) => ({ name: s.collector, up: s.up })),
    ...parts.map((p) => ({ name: p.part, up: p.up })),
  ];
  const down = all.filter((x) => x.up === false).map((x) => x.name);
  const pending = all.filter((x) => x.up === null).map((x) => x.name);
  const status: ReadyState = !accepting
    ? 'stopping'
    : down.length
      ? 'degraded'
      : pending.length
        ? 'starting'
        : 'ready';
  const partial = sources
    .filter((s) => s.up === true && s.partial !== null)
    .map((s) => s.collector);
  return { status, down, pending, partial, sources, parts };
}
