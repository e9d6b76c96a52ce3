// The journey API's answers (docs/api.md), as the exporter defines them.
export type { CoverageReport, Journey, TimelineEntry } from '@acktrail/exporter';
