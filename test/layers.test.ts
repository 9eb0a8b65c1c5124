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
const folder = (file: string) => dirname(file);

/** Imports from files matching `from` into files matching `to`, as `a -> b` lines. */
function importsBetween(from: (file: string) => boolean, to: (file: string) => boolean): string[] {
  const found: string[] = [];
  for (const [file, edges] of graph) {
    if (!from(file)) continue;
    for (const edge of edges) if (to(edge.to)) found.push(`${file} -> ${edge.to}`);
  }
  return found;
}

test('the graph is read: a run imports the labels, the router and the model errors', () => {
  const run = graph.get(join('agent', 'run.ts'))?.map((e) => e.to) ?? [];
  assert.ok(run.includes(join('react', 'labels.ts')), run.join(', '));
  assert.ok(run.includes(join('tools', 'router.ts')));
  assert.ok(run.includes(join('models', 'errors.ts')));
  assert.ok(graph.size > 50);
});

test('models/ imports nothing from agent/ or trace/ (types included)', () => {
  const up = (f: string) => f.startsWith(`agent/`) || f.startsWith(`trace/`);
  assert.deepEqual(
    importsBetween((f) => f.startsWith('models/'), up),
    [],
  );
});

test('react/ (the text protocol) imports nothing from agent/, tools/ or models/', () => {
  const other = (f: string) => ['agent/', 'tools/', 'models/'].some((p) => f.startsWith(p));
  assert.deepEqual(
    importsBetween((f) => f.startsWith('react/'), other),
    [],
  );
});

test('telemetry/ and agent/types.ts do not import each other: agent/types.ts imports no telemetry', () => {
  assert.deepEqual(
    importsBetween(
      (f) => f === 'agent/types.ts',
      (f) => f.startsWith('telemetry/'),
    ),
    [],
  );
});

test('no import cycles (a cycle of type-only imports inside one folder is allowed: it is erased at build)', () => {
  const cycles = stronglyConnected().filter((members) => {
    const inside = new Set(members);
    const oneFolder = members.every((m) => folder(m) === folder(members[0]!));
    const valueEdge = members.some((m) => graph.get(m)!.some((e) => inside.has(e.to) && !e.typeOnly));
    return !oneFolder || valueEdge;
  });
  assert.deepEqual(
    cycles.map((c) => c.sort().join(' <-> ')),
    [],
  );
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
