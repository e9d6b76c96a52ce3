// The pipeline's own rows for one event, as the model reasons about them: its outbox row, its
// aggregate's row, its result row and its provider attempts. Read by pipeline readers
// (journeys/assemble/rows.ts) from the tables the config names.
export interface PipelineRows {
  outbox: {
    eventType: string | null;
    aggregateId: string | null;
    createdAt: Date;
    publishedAt: Date | null;
    lastError: string | null;
  } | null;
  aggregate: { id: string; createdAt: Date; status: string | null } | null;
  /** Whether the aggregate reader ran (its absence then means the row is not there). */
  aggregateRead: boolean;
  result: { createdAt: Date } | null;
  attempts: {
    attempt: number;
    outcome: string;
    statusCode: number | null;
    createdAt: Date;
    durationSeconds: number;
  }[];
  /** What could not be read, in plain words ("results: table order_confirmations not found"). */
  notes: string[];
}
