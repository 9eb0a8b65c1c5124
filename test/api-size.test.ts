/**
 * The front door stays small (issue 26): the core entry (`taoloop`) exports at most 80 names, types
 * included, and a run takes at most 14 top-level options; the rest is in named groups. Read with the
 * TypeScript checker from the sources the declarations are built from.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { TOP_LEVEL_OPTIONS } from '../src/agent/options.js';

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const optionsFile = fileURLToPath(new URL('../src/agent/options.ts', import.meta.url));
const program = ts.createProgram([entry], {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  noEmit: true,
});
const checker = program.getTypeChecker();

function moduleSymbol(file: string): ts.Symbol {
  const source = program.getSourceFile(file);
  assert.ok(source, file);
  const symbol = checker.getSymbolAtLocation(source);
  assert.ok(symbol, `no module symbol for ${file}`);
  return symbol;
}

/** The names of the top-level properties of an exported type of `file`. */
function propertiesOf(file: string, typeName: string): string[] {
  const exported = checker.getExportsOfModule(moduleSymbol(file)).find((s) => s.name === typeName);
  assert.ok(exported, `${typeName} is not exported from ${file}`);
  const type = checker.getDeclaredTypeOfSymbol(exported);
  return checker.getPropertiesOfType(type).map((p) => p.name);
}

const coreExports = checker.getExportsOfModule(moduleSymbol(entry)).map((s) => s.name);

test('the core entry exports at most 80 names, types included', () => {
  assert.ok(coreExports.length > 40, `read ${coreExports.length} names`);
  assert.ok(coreExports.length <= 80, `${coreExports.length} names: ${coreExports.sort().join(', ')}`);
  for (const name of ['runAgent', 'streamAgent', 'resumeAgent', 'AgentOptions', 'RunResult', 'defineTool'])
    assert.ok(coreExports.includes(name), name);
  // Protocol internals are in `taoloop/protocol`.
  for (const name of [
    'parseTurn',
    'renderSystemPrompt',
    'stopSequences',
    'createToolRouter',
    'DocumentIndex',
  ])
    assert.ok(!coreExports.includes(name), name);
});

test('AgentOptions has at most 14 top-level options, and the list the run checks is the same', () => {
  const names = propertiesOf(optionsFile, 'AgentOptions').sort();
  assert.ok(names.length <= 14, names.join(', '));
  assert.deepEqual(names, [...TOP_LEVEL_OPTIONS].sort());
});
