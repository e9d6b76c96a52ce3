// Bounded label values. A label's distinct values are capped; past the cap a new value becomes
// "other" and the observation is counted in acktrail_label_overflow_total{label}, so a flood of
// task names, workers or reasons never grows the exposition without bound, and never silently.
import { Counter, type Registry } from 'prom-client';
import { counter } from './metrics/catalogue.js';

const OVERFLOW = 'acktrail_label_overflow_total';
export const OTHER = 'other';

/** The one overflow counter of a registry, made by whichever bounded label asks first. */
function overflowCounter(registry: Registry): Counter<'label'> {
  const existing = registry.getSingleMetric(OVERFLOW) as Counter<'label'> | undefined;
  return (
    existing ?? new Counter({ ...counter('acktrail_label_overflow_total'), registers: [registry] })
  );
}

export class BoundedLabel {
  private readonly values = new Set<string>();
  private readonly overflow: Counter<'label'> | null;
  private readonly name: string;

  /**
   * @param max distinct values kept
   * @param counted where overflows are counted, and under which `label` value; omitted: not
   *   counted (tests)
   */
  constructor(
    private readonly max: number,
    counted?: { registry: Registry; label: string },
  ) {
    this.overflow = counted ? overflowCounter(counted.registry) : null;
    this.name = counted?.label ?? '';
    this.overflow?.inc({ label: this.name }, 0);
  }

  /** The value itself while there is room for it (or it is known), "other" after. */
  of(value: string | null | undefined): string {
    const v = value ?? 'unknown';
    if (this.values.has(v)) return v;
    if (this.values.size >= this.max) {
      this.overflow?.inc({ label: this.name });
      return OTHER;
    }
    this.values.add(v);
    return v;
  }

  /** Whether `of(value)` would keep the value itself; nothing is counted or taken. */
  fits(value: string): boolean {
    return this.values.has(value) || this.values.size < this.max;
  }

  /** Makes room again: a value whose series is gone (an expired worker). */
  forget(value: string): void {
    this.values.delete(value);
  }

  /** Whether a value (a combination of labels, joined) still fits; counted when it does not. */
  admits(value: string): boolean {
    return this.of(value) !== OTHER || value === OTHER;
  }
}
