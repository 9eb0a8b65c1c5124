/**
 * Every option of `AgentOptions` says its default (or that it has none) and, for a number, its unit:
 * read from the TSDoc in src/agent/types.ts with the TypeScript compiler's parser, so a new option
 * without them fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../helpers/cli.js';

/** The members of the exported interface `name` in `file`: name, optional, type text and TSDoc text. */
function optionDocs(file: string, name: string) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = source.statements.find(
    (node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name,
  );
  assert.ok(found, `${name} in ${file}`);
  return found.members.filter(ts.isPropertySignature).map((member) => ({
    name: member.name.getText(source),
    optional: member.questionToken !== undefined,
    type: member.type?.getText(source) ?? '',
    doc: ts
      .getJSDocCommentsAndTags(member)
      .map((doc) => doc.getText(source))
      .join('\n'),
  }));
}

/** A unit in the name (`timeoutMs`, `maxCostUsd`, `maxOutputTokens`), or a unit or counted thing in the doc. */
const UNIT_IN_NAME = /(Ms|Usd|Tokens|Chars|Bytes)$/;
const UNIT_IN_DOC =
  /\b(milliseconds|seconds|USD|tokens|characters|bytes|steps|turns|answers|repeats|calls|tools|no unit)\b/i;

test('every AgentOptions option states its default (or that it has none), and every number its unit', () => {
  const options = optionDocs(join(ROOT, 'src/agent/types.ts'), 'AgentOptions');
  assert.ok(options.length > 30, `found ${options.length} options`);
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
