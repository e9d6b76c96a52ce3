// The OpenTelemetry Collector recipe (deploy/otel-collector/config.yaml, shown in docs/adopting.md),
// parsed: every pipeline names components that are defined, every span reaches the trace store's
// pipeline (which samples), only messaging and acktrail spans reach acktrail, unsampled, over
// OTLP/gRPC with the ingest token; and those exporter settings (its headers, its port) are taken
// by a real acktrail receiver. No otelcol binary is installable here: the shape is what is checked.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Metadata } from '@grpc/grpc-js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { parse } from 'yaml';
import { REPO_ROOT } from '@acktrail/testing';
import { TestExporter } from '@acktrail/exporter/testing';
import { countSteps, journeySpans } from '@acktrail/exporter/testing/otlp';

interface Pipeline {
  receivers: string[];
  processors?: string[];
  exporters: string[];
}
interface Recipe {
  receivers: Record<string, { protocols: Record<string, unknown> }>;
  processors: Record<string, { traces?: { span: string[] } }>;
  exporters: Record<string, { endpoint: string; headers?: Record<string, string> }>;
  service: { pipelines: Record<string, Pipeline> };
}

const TOKEN = 'collector-recipe-token-0123456789';

const FILE = join(REPO_ROOT, 'deploy/otel-collector/config.yaml');
const recipe = (): Recipe => parse(readFileSync(FILE, 'utf8')) as Recipe;
/** Processors that sample: the trace store's pipeline may have one, acktrail's never. */
const SAMPLERS = /^(probabilistic_sampler|tail_sampling)(\/|$)/;

let exporter: Awaited<ReturnType<typeof TestExporter.withStore>>;
before(async () => {
  exporter = await TestExporter.withStore({
    ACKTRAIL_OTLP_GRPC_PORT: '0',
    ACKTRAIL_INGEST_TOKEN: TOKEN,
  });
});
after(async () => {
  await exporter.close();
});

test('docs/adopting.md shows the recipe as the file has it', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs/adopting.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Through an OpenTelemetry Collector'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the recipe is a yaml block under its heading');
  assert.deepEqual(parse(block), recipe());
});

test('the recipe: defined components, every span to the trace store, messaging spans to acktrail', () => {
  const r = recipe();
  assert.ok(r.receivers.otlp?.protocols.grpc, 'the services may send OTLP/gRPC');
  for (const [name, p] of Object.entries(r.service.pipelines)) {
    for (const c of p.receivers) assert.ok(r.receivers[c], `${name}: receiver ${c} defined`);
    for (const c of p.processors ?? []) assert.ok(r.processors[c], `${name}: processor ${c}`);
    for (const c of p.exporters) assert.ok(r.exporters[c], `${name}: exporter ${c} defined`);
  }
  const pipelines = Object.values(r.service.pipelines);
  const toAcktrail = pipelines.filter((p) => p.exporters.includes('otlp/acktrail'));
  assert.equal(toAcktrail.length, 1);
  const [acktrail] = toAcktrail;
  assert.deepEqual(acktrail!.exporters, ['otlp/acktrail'], 'acktrail gets its own pipeline');
  const filters = (acktrail!.processors ?? []).filter((p) => p.startsWith('filter'));
  assert.equal(filters.length, 1, 'one filter in front of acktrail');
  assert.ok(
    !(acktrail!.processors ?? []).some((p) => SAMPLERS.test(p)),
    "acktrail's pipeline samples nothing: its journeys and counts stay whole",
  );
  const dropped = r.processors[filters[0]!]!.traces!.span;
  // A span is dropped only when it is neither a messaging span nor one of acktrail's.
  assert.deepEqual(dropped, [
    'attributes["messaging.system"] == nil and attributes["acktrail.event_id"] == nil',
  ]);
  // The trace store's pipeline has no filter: it keeps every span.
  const store = pipelines.filter((p) => !p.exporters.includes('otlp/acktrail'));
  assert.ok(store.length > 0);
  for (const p of store)
    assert.ok(!(p.processors ?? []).some((x) => x.startsWith('filter')), 'nothing filtered');
  // The sampling is the trace store's, after the receivers: the services export every span.
  assert.ok(
    store.some((p) => (p.processors ?? []).some((x) => SAMPLERS.test(x))),
    "the trace store's pipeline samples",
  );
});

test("the recipe's acktrail exporter settings are what a real acktrail receiver takes", async () => {
  const settings = recipe().exporters['otlp/acktrail']!;
  assert.match(settings.endpoint, /:4317$/, 'the OTLP/gRPC port');
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(settings.headers ?? {}))
    metadata.set(key, value.replace('${env:ACKTRAIL_INGEST_TOKEN}', TOKEN));
  const sdk = new OTLPTraceExporter({
    url: `http://127.0.0.1:${exporter.ports.otlpGrpc}`,
    metadata,
  });
  const result = await new Promise<{ code: number }>((resolve) => {
    sdk.export(journeySpans('ev-through-collector'), resolve);
  });
  await sdk.shutdown();
  assert.equal(result.code, 0);
  assert.equal(await countSteps(exporter.storeUrl, 'event_id = $1', ['ev-through-collector']), 4);
});
