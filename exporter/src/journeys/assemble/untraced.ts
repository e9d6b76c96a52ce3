// A message acktrail knows from something other than spans (its outbox row, a parked dead letter)
// but of which no span arrived: its trace was sampled out before acktrail's recording sampler was
// in place, or its service is not instrumented. The journey answers with what is known and says
// that no trace was recorded: "not traced" is not "not found".
import { parkedReason, type ParkedRecord } from '../model/index.js';
import { quoted, reasonWords } from './quote.js';
import type { PipelineRows } from '../model/pipeline-rows.js';

/** Where an untraced message is known from. */
export type KnownFrom = 'outbox' | 'dead_letter_parking';

const time = (d: Date) => d.toISOString().replace('T', ' ').slice(0, 19);

export const NOT_TRACED =
  'no trace recorded for this message: its trace was sampled out, or its service is not instrumented';

/** The sources, and the verdict in words: what each says, after the fact that no span did. */
export function untracedVerdict(
  rows: PipelineRows | null,
  parked: readonly ParkedRecord[],
): { knownFrom: KnownFrom[]; verdict: string } {
  const knownFrom: KnownFrom[] = [];
  const parts = [NOT_TRACED];
  const outbox = rows?.outbox;
  if (outbox) {
    knownFrom.push('outbox');
    parts.push(
      outbox.publishedAt
        ? `its outbox row says published at ${time(outbox.publishedAt)} UTC`
        : `its outbox row, written at ${time(outbox.createdAt)} UTC, is not published${outbox.lastError ? ` (its last error says ${quoted(outbox.lastError)})` : ''}`,
    );
  }
  if (parked.length > 0) {
    knownFrom.push('dead_letter_parking');
    const last = parked.at(-1)!;
    const reason = parkedReason(last.reason, last.reasonSource);
    // The broker's own x-death word apart from a header's text.
    const death =
      reason.by === 'header' && last.deathReason ? `; x-death: ${last.deathReason}` : '';
    parts.push(
      `dead-lettered${last.from ? ` from ${last.from}` : ''} (${reasonWords(reason)}${death}): parked from ${last.queue} at ${time(last.parkedAt)} UTC, ${last.state}`,
    );
  }
  return { knownFrom, verdict: parts.join('; ') };
}
