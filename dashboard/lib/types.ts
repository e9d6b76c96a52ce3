// The parts of the journey API's answers the dashboard shows (docs/api.md).
export interface TimelineEntry {
  at: string;
  stage: string;
  source: 'span' | 'pipeline';
  service: string | null;
  name: string;
  durationMs: number | null;
  gapMs: number | null;
  waitMs: number | null;
  skewMs: number | null;
  status: string;
  statusMessage: string | null;
  note: string | null;
  traceId: string | null;
  spanId: string | null;
  attributes: Record<string, string | number | boolean>;
}

export interface Journey {
  eventId: string;
  aggregate: { type: string | null; id: string } | null;
  verdict: string;
  kinds: string[];
  publishes: number;
  deliveries: number;
  retries: { count: number; delaysMs: number[] };
  deadLetter: { reason: string } | null;
  attempts: {
    attempt: number;
    outcome: string;
    statusCode: number | null;
    at: string;
    durationMs: number;
  }[];
  traceIds: string[];
  timeline: TimelineEntry[];
}
