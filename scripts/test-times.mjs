// A `node --test` reporter beside spec: each test file's wall time (the runner's own file-level
// dequeue and complete events) and when it started and ended in the run, printed slowest first
// and then the last to end, so that whoever makes the suite faster sees where its time goes.
const SHOWN = 15;
const LAST = 8;

export default async function* testTimes(source) {
  const started = new Map();
  const rows = [];
  const t0 = Date.now();
  const at = () => (Date.now() - t0) / 1000;
  for await (const { type, data } of source) {
    // A file's own events carry its path as their name; its tests' events carry theirs.
    if (!data?.file || data.nesting !== 0 || !data.file.endsWith(data.name)) continue;
    if (type === 'test:dequeue') started.set(data.file, at());
    else if (type === 'test:complete' && started.has(data.file)) {
      const from = started.get(data.file);
      const to = at();
      rows.push({ file: data.name.replace(`${process.cwd()}/`, ''), from, to, s: to - from });
    }
  }
  const line = ({ file, from, to, s }) =>
    `${s.toFixed(1).padStart(7)} s  ${file}  (${from.toFixed(0)} to ${to.toFixed(0)} s)\n`;
  yield `\nslowest of ${rows.length} test files (wall time, ${at().toFixed(0)} s in all):\n`;
  for (const row of [...rows].sort((a, b) => b.s - a.s).slice(0, SHOWN)) yield line(row);
  if (rows.length > LAST) {
    yield `the last ${LAST} to end:\n`;
    for (const row of [...rows].sort((a, b) => b.to - a.to).slice(0, LAST)) yield line(row);
  }
}
