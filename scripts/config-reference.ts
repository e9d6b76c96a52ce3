// The exporter's configuration file, described from its one source: the zod schema
// (exporter/src/config/) gives every key's type, bounds and default (z.toJSONSchema), and the
// doc comment above each key in that source gives its description (read with the TypeScript
// compiler, so that the comments stay where a developer reads them). From the two:
//   exporter/acktrail.schema.json   a JSON Schema for editors (`acktrail schema` prints it)
//   docs/configuration.md           the reference, one table per section
// Both are written by `npm run generate` and checked by `npm run generate -- --check`.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { envSchema } from '../exporter/src/config/env.js';
import { fileSchema } from '../exporter/src/config/sections.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECTIONS = join(ROOT, 'exporter/src/config/sections.ts');
const ENV = join(ROOT, 'exporter/src/config/env.ts');

type Json = { [key: string]: unknown };

const sources = new Map<string, ts.SourceFile>();
function sourceOf(path: string): ts.SourceFile {
  let sf = sources.get(path);
  if (!sf) {
    sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    sources.set(path, sf);
  }
  return sf;
}

const docOf = (node: ts.Node): string | null => {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const text = docs.map((d) => ts.getTextOfJSDocComment(d.comment) ?? '').join(' ');
  return text.trim().replace(/\s+/g, ' ') || null;
};

/**
 * The initializer a name stands for (a const of this file, or one it imports from ./x.js), with
 * the doc comment of its declaration.
 */
function declaration(
  name: string,
  sf: ts.SourceFile,
): [ts.Expression, ts.SourceFile, string | null] | null {
  for (const st of sf.statements) {
    if (ts.isVariableStatement(st))
      for (const d of st.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer)
          return [d.initializer, sf, docOf(st)];
    if (
      ts.isImportDeclaration(st) &&
      ts.isStringLiteral(st.moduleSpecifier) &&
      st.moduleSpecifier.text.startsWith('.') &&
      st.importClause?.namedBindings &&
      ts.isNamedImports(st.importClause.namedBindings) &&
      st.importClause.namedBindings.elements.some((e) => e.name.text === name)
    ) {
      const path = resolve(dirname(sf.fileName), st.moduleSpecifier.text.replace(/\.js$/, '.ts'));
      return declaration(name, sourceOf(path));
    }
  }
  return null;
}

/**
 * The object literal of the first z.strictObject / z.object an expression builds, breadth
 * first (the outermost), following names to their declarations; `array` when it is an array's.
 */
function objectOf(
  expr: ts.Node,
  sf: ts.SourceFile,
): { literal: ts.ObjectLiteralExpression; sf: ts.SourceFile; array: boolean } | null {
  const queue: [ts.Node, ts.SourceFile, boolean][] = [[expr, sf, false]];
  while (queue.length > 0) {
    const [node, file, array] = queue.shift()!;
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(file);
      if (/(^|\.)(strictObject|object)$/.test(callee)) {
        const arg = node.arguments[0];
        if (arg && ts.isObjectLiteralExpression(arg)) return { literal: arg, sf: file, array };
      }
      const inArray = array || /(^|\.)array$/.test(callee);
      queue.push(
        [node.expression, file, array],
        ...node.arguments.map((a) => [a, file, inArray] as [ts.Node, ts.SourceFile, boolean]),
      );
      continue;
    }
    if (ts.isPropertyAccessExpression(node)) {
      queue.push([node.expression, file, array]);
      continue;
    }
    if (ts.isIdentifier(node)) {
      const found = declaration(node.text, file);
      if (found) queue.push([found[0], found[1], array]);
    }
  }
  return null;
}

/** Each key's description by its path (`journeys.words.done`, `deadLetters.queues[].queue`). */
export function descriptions(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (literal: ts.ObjectLiteralExpression, sf: ts.SourceFile, prefix: string) => {
    for (const p of literal.properties) {
      if (!ts.isPropertyAssignment(p) || !ts.isIdentifier(p.name)) continue;
      const path = prefix + p.name.text;
      // A section's own comment is on the const it is declared as.
      const named = ts.isIdentifier(p.initializer)
        ? declaration(p.initializer.text, sf)
        : ts.isCallExpression(p.initializer) &&
            ts.isPropertyAccessExpression(p.initializer.expression) &&
            ts.isIdentifier(p.initializer.expression.expression)
          ? declaration(p.initializer.expression.expression.text, sf)
          : null;
      const doc = docOf(p) ?? named?.[2] ?? null;
      if (doc) out.set(path, doc);
      const inner = objectOf(p.initializer, sf);
      if (inner) walk(inner.literal, inner.sf, `${path}${inner.array ? '[]' : ''}.`);
    }
  };
  const decl = declaration('fileSchema', sourceOf(SECTIONS));
  const top = decl && objectOf(decl[0], decl[1]);
  if (!top) throw new Error('fileSchema not found in exporter/src/config/sections.ts');
  walk(top.literal, top.sf, '');
  return out;
}

/** Each environment variable's description, from its comment in exporter/src/config/env.ts. */
function variableDocs(): Map<string, string> {
  const decl = declaration('envSchema', sourceOf(ENV));
  const literal = decl && objectOf(decl[0], decl[1]);
  if (!literal) throw new Error('envSchema not found in exporter/src/config/env.ts');
  const out = new Map<string, string>();
  for (const p of literal.literal.properties) {
    const doc = ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) ? docOf(p) : null;
    if (doc) out.set((p.name as ts.Identifier).text, doc);
  }
  return out;
}

/** The JSON Schema of the config file (input side: what may be written), with descriptions. */
export function configSchema(): Json {
  const schema = z.toJSONSchema(fileSchema, { io: 'input', unrepresentable: 'any' }) as Json;
  const docs = descriptions();
  const describe = (node: Json, path: string) => {
    const props = node.properties as Record<string, Json> | undefined;
    for (const [key, child] of Object.entries(props ?? {})) {
      const here = path ? `${path}.${key}` : key;
      const doc = docs.get(here);
      if (doc) child.description = doc;
      describe(child, here);
      const items = child.items as Json | undefined;
      if (items && typeof items === 'object') describe(items, `${here}[]`);
    }
  };
  describe(schema, '');
  return {
    ...schema,
    $id: 'https://github.com/acktrail/acktrail/exporter/acktrail.schema.json',
    title: 'acktrail exporter configuration (ACKTRAIL_CONFIG)',
  };
}

const typeOf = (node: Json): string => {
  if (Array.isArray(node.enum)) return node.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(node.anyOf)) return (node.anyOf as Json[]).map(typeOf).join(' or ');
  if (node.type === 'array') return `list of ${typeOf((node.items as Json | undefined) ?? {})}`;
  if (node.type === 'integer' || node.type === 'number') {
    const safe = (v: unknown) => v !== undefined && Math.abs(Number(v)) < Number.MAX_SAFE_INTEGER;
    const bounds = [
      safe(node.minimum) ? `≥ ${String(node.minimum)}` : null,
      safe(node.exclusiveMinimum) ? `> ${String(node.exclusiveMinimum)}` : null,
      safe(node.maximum) ? `≤ ${String(node.maximum)}` : null,
    ].filter(Boolean);
    return `${node.type}${bounds.length ? ` (${bounds.join(', ')})` : ''}`;
  }
  return typeof node.type === 'string' ? node.type : 'any';
};

const descriptionOf = (node: Json) =>
  typeof node.description === 'string' ? node.description : '';
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const shown = (v: unknown) => {
  const text = JSON.stringify(v);
  return text.length > 60 ? 'see the section' : `\`${cell(text)}\``;
};

/** docs/configuration.md: every key of the file with its type, default and description. */
export function configReference(): string {
  const schema = configSchema();
  const lines = [
    '<!-- Generated from exporter/src/config/ by `npm run generate` (scripts/config-reference.ts): edit the schema and its comments, not this. -->',
    '',
    '# Configuration reference',
    '',
    'The exporter reads its file from `ACKTRAIL_CONFIG` (YAML or JSON) and its secrets and',
    'addresses from the environment ([metrics.md](metrics.md#running)). The file is validated at',
    'start: an unknown key or a wrong value exits with code 2 and a line naming the key',
    '(`rabbitmq.vhost: unknown key`); `acktrail check-config` validates without starting.',
    'Table and column names must be plain SQL names (`column`, `table` or `schema.table`) and are',
    'quoted; values always go as query parameters.',
    '',
    'For completion and checks in an editor, `acktrail schema > acktrail.schema.json` writes the',
    'JSON Schema of the file ([`exporter/acktrail.schema.json`](../exporter/acktrail.schema.json));',
    'with the YAML language server: `# yaml-language-server: $schema=acktrail.schema.json` as the',
    "file's first line.",
    '',
  ];
  const rows: string[] = [];
  const walk = (node: Json, path: string) => {
    const props = node.properties as Record<string, Json> | undefined;
    if (!props) return;
    for (const [key, child] of Object.entries(props)) {
      const here = path ? `${path}.${key}` : key;
      const items = child.items as Json | undefined;
      const nested = child.properties ?? items?.properties;
      rows.push(
        `| \`${here}\` | ${cell(typeOf(child))} | ${'default' in child ? shown(child.default) : ''} | ${cell(descriptionOf(child))} |`,
      );
      if (nested) walk(child.properties ? child : items!, child.properties ? here : `${here}[]`);
    }
  };
  const top = schema.properties as Record<string, Json>;
  const header = ['| key | type | default | description |', '| --- | --- | --- | --- |'];
  const scalars = Object.entries(top).filter(([, node]) => !node.properties);
  for (const [section, node] of Object.entries(top)) {
    if (!node.properties) continue;
    lines.push(`## \`${section}\``, '');
    if (descriptionOf(node)) lines.push(descriptionOf(node), '');
    rows.length = 0;
    walk(node, section);
    lines.push(...header, ...rows, '');
  }
  rows.length = 0;
  walk({ properties: Object.fromEntries(scalars) }, '');
  lines.push('## Top-level keys', '', ...header, ...rows, '');

  lines.push(
    '## Environment',
    '',
    'Secrets and addresses come from the environment, never from the file. Each variable that',
    'holds a secret also has a `_FILE` form (`ACKTRAIL_API_TOKEN_FILE=/run/secrets/token`).',
    '',
    '| variable | type | default | description |',
    '| --- | --- | --- | --- |',
  );
  const env = z.toJSONSchema(envSchema, { io: 'input', unrepresentable: 'any' }) as Json;
  const envDocs = variableDocs();
  for (const [name, node] of Object.entries(env.properties as Record<string, Json>))
    lines.push(
      `| \`${name}\` | ${cell(typeOf(node))} | ${'default' in node ? shown(node.default) : ''} | ${cell(envDocs.get(name) ?? '')} |`,
    );
  lines.push('');
  return lines.join('\n');
}
