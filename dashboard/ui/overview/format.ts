// Axis and tooltip numbers in the chart's unit.
import type { Unit } from '@/lib/charts/overview';

const compact = new Intl.NumberFormat('en', { maximumSignificantDigits: 3 });

export function formatValue(value: number, unit: Unit): string {
  switch (unit) {
    case 'seconds':
      if (value === 0) return '0 s';
      if (value < 1) return `${compact.format(value * 1000)} ms`;
      if (value < 120) return `${compact.format(value)} s`;
      return `${compact.format(value / 60)} min`;
    case 'ratio':
      return `${compact.format(value * 100)} %`;
    case 'per_second':
      return `${compact.format(value)}/s`;
    case 'count':
      return compact.format(value);
  }
}

/** "06:40" within a day, "30 Nov 06:40" across days; UTC, as everywhere on the dashboard. */
export function formatTime(unixSeconds: number, spanSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  const time = d.toISOString().slice(11, 16);
  if (spanSeconds <= 86_400) return time;
  return `${d.getUTCDate()} ${d.toLocaleString('en', { month: 'short', timeZone: 'UTC' })} ${time}`;
}
