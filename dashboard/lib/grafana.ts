// The Grafana panels the dashboard embeds, by the uid and panel id of acktrail's provisioned
// dashboards (grafana/dashboards/*.json; a test checks that every one exists there).
import 'server-only';
import { config } from './config';

export interface PanelRef {
  uid: string;
  slug: string;
  panelId: number;
  title: string;
}

const pipeline = { uid: 'acktrail-pipeline', slug: 'acktrail-pipeline-overview' };
const flow = { uid: 'acktrail-event-flow', slug: 'acktrail-event-flow' };

export const EMBEDS = {
  overview: [
    { ...pipeline, panelId: 2, title: 'Ready messages by role (Grafana)' },
    { ...pipeline, panelId: 6, title: 'Oldest unpublished outbox row (Grafana)' },
    { ...pipeline, panelId: 7, title: 'Confirmation latency against the SLO (Grafana)' },
    { ...pipeline, panelId: 10, title: 'Provider error ratio (Grafana)' },
  ],
  event: [
    { ...flow, panelId: 1, title: 'Stage durations (Grafana)' },
    { ...flow, panelId: 3, title: 'Redeliveries (Grafana)' },
    { ...flow, panelId: 4, title: 'Dead-letters by reason (Grafana)' },
  ],
} satisfies Record<string, PanelRef[]>;

/** The panel alone (/d-solo/) over [from, to] in unix milliseconds; null without GRAFANA_URL. */
export function panelUrl(
  panel: PanelRef,
  fromMs: number,
  toMs: number,
  theme: 'light' | 'dark' | null,
): string | null {
  if (!config.grafanaUrl) return null;
  const q = new URLSearchParams({
    orgId: '1',
    panelId: String(panel.panelId),
    from: String(Math.floor(fromMs)),
    to: String(Math.ceil(toMs)),
  });
  if (theme) q.set('theme', theme);
  return `${config.grafanaUrl}/d-solo/${panel.uid}/${panel.slug}?${q.toString()}`;
}
