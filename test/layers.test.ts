/**
 * Layers point down (../shared/design/architecture.md): the rules are checked on the import graph of
 * src/, read from the source text (static imports, re-exports and dynamic `import()`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

interface Edge {
  to: string;
  /** `import type` / `export type`: erased at build time. */
  typeOnly: boolean;
}

/** Every .ts file under src/ (as a path relative to src/) with its relative imports. */
function importGraph(): Map<string, Edge[]> {
  const graph = new Map<string, Edge[]>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const text = readFileSync(join(SRC, file), 'utf8');
    const edges: Edge[] = [];
    const target = (spec: string) => relative(SRC, resolve(SRC, dirname(file), spec.replace(/\.js$/, '.ts')));
    for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?\sfrom\s+'(\.[^']+)'/gm)) {
      edges.push({ to: target(m[2]!), typeOnly: m[1] !== undefined });
    }
    for (const m of text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g))
      edges.push({ to: target(m[1]!), typeOnly: false });
    graph.set(file, edges);
  }
  return graph;
}

const graph = importGraph();

test('the graph is read: a run imports the labels, the router and the model errors', () => {
  const run = graph.get(join('agent', 'run.ts'))?.map((e) => e.to) ?? [];
  assert.ok(run.includes(join('react', 'labels.ts')), run.join(', '));
  assert.ok(run.includes(join('tools', 'router.ts')));
  const step = graph.get(join('agent', 'step.ts'))?.map((e) => e.to) ?? [];
  assert.ok(step.includes(join('models', 'errors.ts')), step.join(', '));
  assert.ok(graph.size > 50);
});

/**
 * The layers, lowest first (../shared/design/architecture.md). A file may import from its own folder and
 * from folders of a lower rank only, type-only imports included; folders of the same rank are peers that
 * know nothing of each other (the text protocol, tools and models). `.` is the core entry (src/index.ts).
 */
const RANKS: Record<string, number> = {
  util: 0,
  react: 1,
  tools: 1,
  models: 1,
  agent: 2,
  testing: 5,
  telemetry: 3,
  trace: 3,
  ui: 3,
  '.': 4,
  eval: 4,
  protocol: 4,
  browser: 5,
  node: 5,
  restate: 5,
  web: 6,
  cli: 7,
};

/** The folder of a file under src/ (`.` for the entry points at its top). */
const topFolder = (file: string) => (file.includes('/') ? file.split('/')[0]! : '.');

test('every folder of src/ has a layer', () => {
  const folders = new Set([...graph.keys()].map(topFolder));
  assert.deepEqual(
    [...folders].filter((f) => RANKS[f] === undefined),
    [],
  );
});

/** Imports of a folder of the importer's own rank or above, as `a -> b` lines. */
function upwardImports(): string[] {
  const up: string[] = [];
  for (const [file, edges] of graph) {
    const from = topFolder(file);
    for (const edge of edges) {
      if (!graph.has(edge.to)) continue; // package.json and the like
      const to = topFolder(edge.to);
      if (to !== from && RANKS[to]! >= RANKS[from]!) up.push(`${file} -> ${edge.to}`);
    }
  }
  return up;
}

test('imports point down: no file imports a folder of its own rank or above, types included', () => {
  assert.deepEqual(upwardImports(), []);
});

test('the check sees an upward import (a type-only one included) and an import between peers', () => {
  graph.set('agent/__x.ts', [{ to: 'telemetry/otel.ts', typeOnly: true }]);
  graph.set('models/__y.ts', [{ to: 'tools/router.ts', typeOnly: false }]);
  try {
    assert.deepEqual(
      upwardImports()
        .filter((line) => line.includes('__'))
        .sort(),
      ['agent/__x.ts -> telemetry/otel.ts', 'models/__y.ts -> tools/router.ts'],
    );
  } finally {
    graph.delete('agent/__x.ts');
    graph.delete('models/__y.ts');
  }
});

test('no import cycles, type-only imports included', () => {
  assert.deepEqual(
    stronglyConnected().map((c) => c.sort().join(' <-> ')),
    [],
  );
});

test('the cycle check finds a cycle when there is one', () => {
  graph.set('__a.ts', [{ to: '__b.ts', typeOnly: true }]);
  graph.set('__b.ts', [{ to: '__a.ts', typeOnly: true }]);
  try {
    assert.deepEqual(
      stronglyConnected().map((c) => c.sort().join(' <-> ')),
      ['__a.ts <-> __b.ts'],
    );
  } finally {
    graph.delete('__a.ts');
    graph.delete('__b.ts');
  }
});

/** Groups of files that import each other, directly or through others (Tarjan's algorithm). */
function stronglyConnected(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const { to } of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) groups.push(group);
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return groups;
}
