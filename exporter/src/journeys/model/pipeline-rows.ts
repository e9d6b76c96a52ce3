// The pipeline's own rows for one event, as the model reasons about them: its outbox row, its
// aggregate's row, its result row and its provider attempts; and what the read path asks of the
// pipeline's tables, which pipeline/rows.ts reads as the config names them.
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
  /** What could not be read, in plain words ("results: table <the results table> not found"). */
  notes: string[];
}

/** What the journeys' read path asks of the pipeline's own tables (pipeline/rows.ts). */
export interface PipelineRowsReader {
  /** Whether unpublished outbox rows can be listed (an outbox section is configured). */
  readonly hasOutbox: boolean;
  /** One event's rows; the aggregate id from its spans when the outbox row has none. */
  forEvent(
    eventId: string,
    aggregateIdFromSpans: Promise<string | null> | string | null,
  ): Promise<PipelineRows>;
  /** Unpublished outbox rows older than `olderThanSeconds`, newest first, after the cursor. */
  stuck(
    olderThanSeconds: number,
    since: Date,
    before: { at: Date; id: string } | null,
    limit: number,
  ): Promise<{ eventId: string; createdAt: Date; aggregateId: string | null }[]>;
  /** An aggregate's events in the outbox. */
  eventsOfAggregate(aggregateId: string): Promise<{ eventId: string; createdAt: Date }[]>;
}
