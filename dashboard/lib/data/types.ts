// The journey API's answers (docs/api.md), as the exporter defines them.
export type {
  AuditEntry,
  CoverageReport,
  Death,
  DeadLetter,
  DeadLetterGroup,
  Journey,
  LookupAnswer,
  QueueSummary,
  ReplayJob,
  ReplayPlan,
  ReplayResult,
  TimelineEntry,
} from '@acktrail/exporter';
