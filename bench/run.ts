// `npm run bench [-- name...] [--rounds=N]`: the benchmarks, one after the other. Each prints its
// own figures and ratios; docs/benchmarks-history.md records them with this command.
// `npm run bench -- report`: the short form of each, and one table of figures against targets.
import { parseArgs } from 'node:util';
import { runCeleryBench } from './celery.js';
import { runDashboardBench } from './dashboard.js';
import { runDayFillBench } from './day-fill.js';
import { runDeadLettersBench } from './dead-letters.js';
import { runDiscardBench } from './discard.js';
import { runHostileBench } from './hostile.js';
import { runInstrumentBench } from './instrument.js';
import { runJourneysBench } from './journeys.js';
import { runJourneySearchBench } from './journey-search.js';
import { runOverviewBench } from './overview.js';
import { runPipelineBench } from './pipeline.js';
import { runQueuesBench } from './queues.js';
import { runReport } from './report.js';
import { runSoakBench } from './soak.js';
import { runSqlBench } from './sql.js';
import { runStatusBench } from './status.js';
import { runStoresBench } from './stores.js';
import { runWritePhasesBench } from './write-phases.js';

const benches: Record<string, (rounds: number) => Promise<void>> = {
  celery: runCeleryBench,
  dashboard: runDashboardBench,
  'day-fill': runDayFillBench,
  'dead-letters': runDeadLettersBench,
  discard: runDiscardBench,
  hostile: runHostileBench,
  instrument: runInstrumentBench,
  journeys: runJourneysBench,
  'journey-search': runJourneySearchBench,
  overview: runOverviewBench,
  pipeline: runPipelineBench,
  queues: runQueuesBench,
  soak: runSoakBench,
  sql: runSqlBench,
  status: runStatusBench,
  stores: runStoresBench,
  'write-phases': runWritePhasesBench,
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '3' } },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) {
  console.error('--rounds must be a positive integer');
  process.exit(2);
}
if (positionals.includes('report')) {
  if (positionals.length > 1) {
    console.error('report runs every bench with a target; name no other');
    process.exit(2);
  }
  await runReport();
  process.exit(0);
}
const unknown = positionals.filter((p) => !(p in benches));
if (unknown.length) {
  console.error(
    `unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}, report`,
  );
  process.exit(2);
}
for (const [name, run] of Object.entries(benches)) {
  // `stores` only loads what the journeys and sql benches would load themselves.
  if (positionals.length ? !positionals.includes(name) : name === 'stores') continue;
  await run(rounds);
}
