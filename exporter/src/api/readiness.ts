// Two questions, two answers. /readyz (serving): can this replica serve what it is for, so that a
// load balancer or a Kubernetes Service sends it requests: its listeners are up and, when journeys
// are on, the journey store answers. /status (readiness): does every part the configuration turns
// on work; collectors report through their runner (they first run with the first scrape), the
// journey store and the Celery consumer through Health: starting, degraded (naming what is down)
// or stopping. A broker away makes the second degraded, never the first unready.
import type { SourceStatus } from '../collectors/index.js';
import type { PartStatus } from '../runtime/health.js';
import { STORE_PART as STORE } from '../journeys/store/index.js';

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

export interface Serving {
  status: 'ready' | 'starting' | 'stopping' | 'unready';
  /** Why not ready; empty when ready. */
  reasons: string[];
}

/** /readyz. `store`: the parts' states when journeys are on (null: no store configured). */
export function serving(opts: {
  listening: boolean;
  accepting: boolean;
  store: PartStatus[] | null;
}): Serving {
  if (!opts.accepting) return { status: 'stopping', reasons: ['shutting down'] };
  if (!opts.listening) return { status: 'starting', reasons: ['listeners not up yet'] };
  const store = opts.store?.find((p) => p.part === STORE);
  if (opts.store && store?.up !== true)
    return {
      status: store?.up === false ? 'unready' : 'starting',
      reasons: [
        store?.up === false
          ? `journey store down: ${store.error ?? 'no answer'}`
          : 'journey store not migrated yet',
      ],
    };
  return { status: 'ready', reasons: [] };
}
