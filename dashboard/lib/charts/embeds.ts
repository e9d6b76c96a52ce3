// The Grafana panels the dashboard embeds, by the uid and panel id of acktrail's provisioned
// dashboards (grafana/dashboards/*.json; test/grafana.test.ts checks that every one exists there),
// and the overview's sections that Grafana's data links point at. No server-only imports: the
// structural test reads this module.
export interface PanelRef {
  uid: string;
  slug: string;
  panelId: number;
  /** The panel's title in Grafana. */
  title: string;
}

const pipeline = { uid: 'acktrail-pipeline', slug: 'acktrail-pipeline-overview' };
const flow = { uid: 'acktrail-event-flow', slug: 'acktrail-event-flow' };

export const EMBEDS = {
  overview: [
    { ...pipeline, panelId: 2, title: 'Ready messages by role' },
    { ...pipeline, panelId: 6, title: 'Oldest unpublished outbox row' },
    { ...pipeline, panelId: 7, title: 'Order to confirmation latency against the SLO' },
    { ...pipeline, panelId: 10, title: 'Provider error ratio' },
  ],
  event: [
    { ...flow, panelId: 1, title: 'Stage durations p95' },
    { ...flow, panelId: 3, title: 'Redeliveries by queue' },
    { ...flow, panelId: 4, title: 'Dead-letters by reason' },
  ],
} satisfies Record<string, PanelRef[]>;

/** The overview's lists of recent anomalous events, by anchor (`/#dead_lettered`). */
export const ANOMALY_SECTIONS = {
  dead_lettered: 'Dead-lettered',
  discarded: 'Discarded (rejected, no dead-letter exchange: gone)',
  published_twice: 'Published twice',
  stuck_in_outbox: 'Stuck in the outbox',
} as const;
