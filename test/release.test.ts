// One version, everywhere a release names it (docs/releasing.md): the root package and every
// workspace, the published packages' ranges on each other, the images that compose and the
// manifests run, and the CHANGELOG's newest heading.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '@acktrail/testing';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
interface Pkg {
  name: string;
  version: string;
  private?: boolean;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const root = JSON.parse(read('package.json')) as Pkg;
const workspaces = root.workspaces!.map((w) => JSON.parse(read(`${w}/package.json`)) as Pkg);

test('every workspace has the root version, and published packages require it of each other', () => {
  for (const w of workspaces) assert.equal(w.version, root.version, w.name);
  const published = new Set(workspaces.filter((w) => !w.private).map((w) => w.name));
  assert.deepEqual([...published].sort(), [
    '@acktrail/conventions',
    '@acktrail/exporter',
    '@acktrail/instrument',
  ]);
  for (const w of workspaces.filter((x) => !x.private))
    for (const [dep, range] of Object.entries({ ...w.dependencies, ...w.peerDependencies }))
      if (published.has(dep)) assert.equal(range, `^${root.version}`, `${w.name} -> ${dep}`);
});

test('compose and the manifests run the images of this version', () => {
  const compose = [...read('docker-compose.yml').matchAll(/image: (acktrail\/[\w-]+):(\S+)/g)];
  // The manifests name the images bare; the kustomization tags them (its `images`).
  const kustomization = 'deploy/kubernetes/kustomization.yaml';
  const tagged = [...read(kustomization).matchAll(/- name: (acktrail\/[\w-]+)\n\s+newTag: (\S+)/g)];
  const images = [
    ...compose.map((m) => ({ f: 'docker-compose.yml', tag: m[2] })),
    ...tagged.map((m) => ({ f: kustomization, tag: m[2] })),
  ];
  assert.ok(compose.length >= 3 && tagged.length === 2, `${images.length} acktrail images`);
  for (const { f, tag } of images) assert.equal(tag, root.version, f);
});

test("the CHANGELOG's newest entry is this version", () => {
  const heading = /^## (\S+)/m.exec(read('CHANGELOG.md'));
  assert.equal(heading?.[1], root.version);
});
