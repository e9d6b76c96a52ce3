// A `node --test` reporter beside spec: each test file's wall time (the runner's own file-level
// dequeue and complete events), printed slowest first when the run ends, so that whoever makes
// the suite faster sees where its time goes.
const SHOWN = 15;

export default async function* testTimes(source) {
  const started = new Map();
  const rows = [];
  const t0 = Date.now();
  for await (const { type, data } of source) {
    // A file's own events carry its path as their name; its tests' events carry theirs.
    if (!data?.file || data.nesting !== 0 || !data.file.endsWith(data.name)) continue;
    if (type === 'test:dequeue') started.set(data.file, Date.now());
    else if (type === 'test:complete' && started.has(data.file))
      rows.push({ file: data.name, s: (Date.now() - started.get(data.file)) / 1000 });
  }
  rows.sort((a, b) => b.s - a.s);
  const total = ((Date.now() - t0) / 1000).toFixed(0);
  yield `\nslowest of ${rows.length} test files (wall time, ${total} s in all):\n`;
  for (const { file, s } of rows.slice(0, SHOWN)) yield `${s.toFixed(1).padStart(7)} s  ${file}\n`;
}
