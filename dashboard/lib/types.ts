// The journey API's answer (docs/api.md), as the exporter defines it.
export type { Journey, TimelineEntry } from '@acktrail/exporter';
