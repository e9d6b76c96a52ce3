// `npm run bench -- stores`: builds, once, the large databases the journeys and sql benches keep
// (the journey stores of BENCH_JOURNEY_STEPS, the pipeline rows beside them, the 10M-row pipeline
// database), so that the report, which runs this first, times the benches apart from the loading.
import { fmt } from './lib.js';
import {
  PIPELINE_DB,
  SIZES,
  STAGES,
  ensureDb,
  loadPipeline,
  loadStore,
  log,
  storeDb,
} from './journeys-data.js';
import { ensureLoaded } from './sql.js';

export async function runStoresBench(): Promise<void> {
  const t0 = performance.now();
  await loadPipeline(await ensureDb(PIPELINE_DB));
  for (const steps of SIZES) await loadStore(await ensureDb(storeDb(steps)), steps / STAGES.length);
  await ensureLoaded();
  log(`stores: ready after ${fmt((performance.now() - t0) / 1000)} s`);
}
