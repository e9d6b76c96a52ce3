// `npm run bench -- report`: the short form of every bench that has a target, one after the
// other, each in a process of its own, then one table: figure, target, measured, met. The large
// stores are built first and kept (`npm run bench -- stores`), and timed apart. Each bench's own
// lines go to stderr as it runs; the table goes to stdout (markdown), and docs/benchmarks.md gets
// it as one table per bench with the date, commit and machine (between its report markers);
// docs/benchmarks-history.md keeps the long, dated runs. The pipeline bench has no target.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@acktrail/testing';
import { figureTable, replaceReport, reportSection, type Figure } from './figures.js';
import { fmt } from './lib.js';

interface Step {
  bench: string;
  rounds: number;
  env?: Record<string, string>;
  /**
   * Runs beside the benches after it instead of before them: what it measures is made of time
   * windows and scrape intervals, not of CPU, and it would spend most of the budget waiting.
   */
  beside?: true;
}

/** The short forms: what the issues' targets name (10,000 queues, 10M and 50M steps), once. */
const STEPS: Step[] = [
  { bench: 'queues', rounds: 1, env: { BENCH_QUEUES: '10000', BENCH_CLUSTER_QUEUES: '10000' } },
  // A STALL later than the target is "not met" whenever it shows: wait for it one scrape longer.
  {
    bench: 'status',
    rounds: 1,
    env: { BENCH_QUEUES: '10000', BENCH_STATUS_BOUND_SECONDS: '315' },
    beside: true,
  },
  { bench: 'journeys', rounds: 1 },
  { bench: 'journey-search', rounds: 1 },
  { bench: 'day-fill', rounds: 1 },
  { bench: 'sql', rounds: 1, env: { BENCH_KEEP_DB: '1' } },
  { bench: 'dead-letters', rounds: 3 },
  { bench: 'instrument', rounds: 1 },
  { bench: 'celery', rounds: 1 },
  { bench: 'dashboard', rounds: 1 },
  { bench: 'overview', rounds: 3 },
  { bench: 'hostile', rounds: 1, env: { BENCH_FLOOD_SECONDS: '20' } },
];

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Runs `bench/run.ts <name>` in a child; its output goes to stderr. Exit code and seconds. */
async function child(name: string, rounds: number, env: Record<string, string>) {
  const started = performance.now();
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'bench/run.ts'), name, `--rounds=${rounds}`],
    { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 2, 2] },
  );
  const [code] = (await once(proc, 'exit')) as [number | null];
  return { code, seconds: (performance.now() - started) / 1000 };
}

export async function runReport(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'acktrail-report-'));
  const t0 = performance.now();
  if (!existsSync(join(REPO_ROOT, 'dashboard', '.next', 'BUILD_ID'))) {
    log('report: building the dashboard (npm run build -w dashboard)');
    const build = spawn('npm', ['run', 'build', '-w', 'dashboard'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 2, 2],
    });
    const [code] = (await once(build, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`npm run build -w dashboard exited ${code}`);
  }
  log('report: the stores the journeys and sql benches keep (built once; hours at 50M steps)');
  const stores = await child('stores', 1, {});
  if (stores.code !== 0) throw new Error(`building the stores failed (exit ${stores.code})`);
  const started = performance.now();
  const rows: (Figure & { bench: string })[] = [];
  const times: string[] = [];
  const run = async (step: Step) => {
    const file = join(dir, `${step.bench}.jsonl`);
    const r = await child(step.bench, step.rounds, { ...step.env, BENCH_FIGURES: file });
    times.push(`${step.bench} ${fmt(r.seconds)} s${step.beside ? ' (beside the others)' : ''}`);
    const figures = existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Figure)
      : [];
    const failed: Figure[] =
      r.code === 0
        ? []
        : [
            {
              figure: `the bench failed (exit ${r.code}); its output above says why`,
              target: 'exit 0',
              measured: `exit ${r.code}`,
              met: false,
            },
          ];
    return [...figures, ...failed].map((f) => ({ ...f, bench: step.bench }));
  };
  const beside: Promise<(Figure & { bench: string })[]>[] = [];
  for (const [i, step] of STEPS.entries()) {
    const at = fmt((performance.now() - started) / 1000);
    log(
      `\nreport: ${i + 1}/${STEPS.length} ${step.bench}${step.beside ? ', beside the next' : ''}, ${at} s in`,
    );
    if (step.beside) beside.push(run(step));
    else rows.push(...(await run(step)));
  }
  for (const figures of await Promise.all(beside)) rows.push(...figures);
  const met = rows.filter((r) => r.met).length;
  const took = `The benches took ${fmt((performance.now() - started) / 1000)} s (${times.join(', ')}); the stores ${fmt(stores.seconds)} s before them; ${fmt((performance.now() - t0) / 1000)} s in all.`;
  console.log(figureTable(rows));
  console.log(`\n${met} of ${rows.length} figures meet their targets. ${took}`);
  const doc = join(REPO_ROOT, 'docs/benchmarks.md');
  writeFileSync(doc, replaceReport(readFileSync(doc, 'utf8'), reportSection(rows, runLine(took))));
  log(`report: docs/benchmarks.md written`);
}

/** What ran where: the date, the commit, Node, the machine. */
function runLine(took: string): string {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT })
      .toString()
      .trim();
  } catch {
    // not a checkout
  }
  const cpu = cpus();
  const machine = `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${fmt(totalmem() / 2 ** 30, 0)} GiB`;
  return `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${commit} (Node ${process.versions.node}; ${machine}). ${took}`;
}
