/**
 * Every option of `AgentOptions` says its default (or that it has none) and, for a number, its unit: the
 * top-level options (`AgentConfig` and the input, `AgentInput`) and those of each group (`limits`,
 * `modelSettings`, `prompt`, `hooks`, `durable`), read from the TSDoc in src/agent/options.ts with the
 * TypeScript compiler's parser, so a new option without them fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../helpers/cli.js';

const FILE = join(ROOT, 'src/agent/options.ts');
const source = ts.createSourceFile(FILE, readFileSync(FILE, 'utf8'), ts.ScriptTarget.Latest, true);

interface OptionDoc {
  name: string;
  optional: boolean;
  type: string;
  doc: string;
}

function describeMembers(members: ts.NodeArray<ts.TypeElement>, prefix: string): OptionDoc[] {
  return members.filter(ts.isPropertySignature).map((member) => ({
    name: `${prefix}${member.name.getText(source)}`,
    optional: member.questionToken !== undefined,
    type: member.type?.getText(source) ?? '',
    doc: ts
      .getJSDocCommentsAndTags(member)
      .map((doc) => doc.getText(source))
      .join('\n'),
  }));
}

/** The members of the exported interface `name`: name (after `prefix`), optional, type text and TSDoc text. */
function interfaceDocs(name: string, prefix = ''): OptionDoc[] {
  const found = source.statements.find(
    (node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name,
  );
  assert.ok(found, `interface ${name} in ${FILE}`);
  return describeMembers(found.members, prefix);
}

/** The members of the type alias `name`, a union of object types, that are not typed `never`. */
function unionDocs(name: string): OptionDoc[] {
  const found = source.statements.find(
    (node): node is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(node) && node.name.text === name,
  );
  assert.ok(found && ts.isUnionTypeNode(found.type), `type ${name} (a union) in ${FILE}`);
  return found.type.types
    .filter(ts.isTypeLiteralNode)
    .flatMap((literal) => describeMembers(literal.members, ''))
    .filter((option) => option.type !== 'never');
}

/** The groups of options, by the interface that declares each. */
const GROUPS = {
  limits: 'AgentLimits',
  modelSettings: 'ModelSettings',
  prompt: 'PromptOptions',
  hooks: 'AgentHooks',
  durable: 'DurableOptions',
} as const;

/** A unit in the name (`timeoutMs`, `maxCostUsd`, `maxOutputTokens`), or a unit or counted thing in the doc. */
const UNIT_IN_NAME = /(Ms|Usd|Tokens|Chars|Bytes)$/;
const UNIT_IN_DOC =
  /\b(milliseconds|seconds|USD|tokens|characters|bytes|steps|turns|answers|repeats|calls|tools|no unit)\b/i;

test('every AgentOptions option states its default (or that it has none), and every number its unit', () => {
  const top = [...interfaceDocs('AgentConfig'), ...unionDocs('AgentInput')];
  for (const [group, declaration] of Object.entries(GROUPS))
    assert.ok(
      top.some((option) => option.name === group && option.type.startsWith(declaration)),
      `${group}: ${declaration}`,
    );
  const options = [
    ...top,
    ...Object.entries(GROUPS).flatMap(([group, declaration]) => interfaceDocs(declaration, `${group}.`)),
  ];
  assert.ok(options.length > 30, `found ${options.length} options`);
  for (const input of ['question', 'messages'])
    assert.ok(
      options.some((option) => option.name === input),
      input,
    );
  const problems = options.flatMap((option) => [
    ...(option.doc === '' ? [`${option.name}: no TSDoc`] : []),
    ...(option.optional && !/@default\b/.test(option.doc)
      ? [`${option.name}: no @default (write "@default none" when it has none)`]
      : []),
    ...(/\bnumber\b/.test(option.type) && !UNIT_IN_NAME.test(option.name) && !UNIT_IN_DOC.test(option.doc)
      ? [`${option.name}: a number whose unit is neither in its name nor in its TSDoc`]
      : []),
  ]);
  assert.deepEqual(problems, []);
});
