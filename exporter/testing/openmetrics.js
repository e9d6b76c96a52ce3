// The exposition as a scraper reads it: client_python's OpenMetrics parser (the format's reference
// implementation; promtool reads only the text format) and promtool for the text format.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '@acktrail/testing';
/** What Prometheus 2.x sends: OpenMetrics first. */
export const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';
function run(cmd, args, input) {
    return new Promise((resolve, reject) => {
        const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (d) => (output += d.toString()));
        child.stderr.on('data', (d) => (output += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => {
            resolve({ code, output });
        });
        child.stdin.end(input);
    });
}
export const promtoolCheck = (text) => run('promtool', ['check', 'metrics'], text);
export async function openMetricsCheck(text) {
    const script = join(REPO_ROOT, 'exporter/testing/check_openmetrics.py');
    const r = await run('/usr/bin/python3', [script], text);
    assert.equal(r.code, 0, r.output);
    return JSON.parse(r.output);
}
/** The exporter's /metrics in OpenMetrics, read by client_python's parser (which must accept it). */
export async function readOpenMetrics(url) {
    const res = await fetch(`${url}/metrics`, { headers: { accept: PROMETHEUS_ACCEPT } });
    assert.equal(res.status, 200);
    return openMetricsCheck(await res.text());
}
//# sourceMappingURL=openmetrics.js.map