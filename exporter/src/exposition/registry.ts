// The exporter's registry, before any collector registers: its build, and the process_* and
// nodejs_* families every Node service exposes (its own CPU, memory, event loop and GC).
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { REVISION, VERSION } from '../version.js';
import { gauge } from '../metrics/catalogue.js';

export function exporterRegistry(): Registry {
  const registry = new Registry();
  new Gauge({ ...gauge('acktrail_build_info'), registers: [registry] }).set(
    { version: VERSION, revision: REVISION },
    1,
  );
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters (promtool and the OpenMetrics specification refuse a gauge with
  // `_total`): their per-type twins without the suffix stay (nodejs_active_handles{type}, …).
  for (const name of ['handles', 'requests', 'resources'])
    registry.removeSingleMetric(`nodejs_active_${name}_total`);
  return registry;
}
