// The function-length gate (eslint.config.js): one function does one thing, and 80 lines (blank
// lines and comments aside) is where a reader stops holding it in mind. Product, example, script
// and bench source; tests are exempt (a test reads top to bottom, set-up first).
//
// The functions below were longer when the gate came in (2026-12-05), each by the name the rule
// gives it. Lint holds each listed file to its longest listed figure; test/shape.test.ts holds
// each function: one not listed over the gate, or a listed one past its figure, fails it, and so
// does a listed one brought under the gate with its line left behind. The list only shrinks.
export const FUNCTION_LENGTH = { max: 80, skipBlankLines: true, skipComments: true };

/** The files not tested by the function-length gate. */
export const NOT_GATED = [
  '**/*.test.ts',
  '**/test/**',
  '**/testing/**',
  '**/fixtures/**',
  '**/*.d.ts',
];

/** File -> function -> its length when the gate came in, its limit until it is split. */
export const LONGER_FUNCTIONS = {
  'bench/dashboard.ts': { runDashboardBench: 90 },
  'bench/journeys.ts': { runJourneysBench: 138 },
  'bench/overview.ts': { runOverviewBench: 119 },
  'bench/queues.ts': { measure: 94 },
  'bench/sql.ts': { runSqlBench: 81 },
  'bench/status.ts': { measure: 90 },
  'dashboard/app/dead-letters/group/[id]/page.tsx': { Group: 103 },
  'dashboard/lib/charts/overview.ts': { overviewCharts: 145 },
  'dashboard/ui/events/CeleryTask.tsx': { CeleryTask: 86 },
  'dashboard/ui/overview/QueueHealth.tsx': { QueueHealth: 86 },
  'dashboard/ui/overview/TimeSeriesChart.tsx': { TimeSeriesChart: 104 },
  'examples/orders/src/provider/server.ts': { createProviderApp: 89 },
  'exporter/src/config.ts': { loadConfig: 96 },
  'exporter/src/journeys/assemble/verdict.ts': { verdictOf: 85 },
  'exporter/src/journeys/metrics.ts': { observe: 84 },
  'exporter/src/receiver/body.ts': { readBody: 97 },
};

/** The eslint config entries: the gate for every gated file, each listed file at its figure. */
export function functionLengthConfig() {
  const rule = (max) => ({
    'max-lines-per-function': ['error', { ...FUNCTION_LENGTH, max }],
  });
  return [
    { files: ['**/*.{ts,tsx,js,mjs}'], ignores: NOT_GATED, rules: rule(FUNCTION_LENGTH.max) },
    ...Object.entries(LONGER_FUNCTIONS).map(([file, functions]) => ({
      files: [file.replace(/[[\]]/g, '\\$&')],
      rules: rule(Math.max(...Object.values(functions))),
    })),
  ];
}
