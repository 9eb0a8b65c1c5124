/**
 * Typed answers on the embedded model: the answer's JSON Schema becomes part of the turn grammar, so the
 * Answer is JSON of that schema. The pure parts (the schema rewrite, the merged grammar) are checked as
 * text; the tiny random-weight GGUF (scripts/make-tiny-gguf.ts) shows that llama.cpp accepts the grammar
 * and that under it even noise answers parse and validate, where the same model without it does not.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { ensureTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { runAgent } from '../../src/agent/loop.js';
import {
  answerJsonRules,
  type LocalModel,
  localModel,
  toLlamaJsonSchema,
  turnGrammar,
} from '../../src/models/local.js';
import { loadModelOnce } from '../../src/models/local-engine.js';
import type { Model } from '../../src/models/types.js';
import { parseTurn } from '../../src/react/parse.js';
import { calculator } from '../../src/tools/calculator.js';

const ENGLISH = { thought: 'Thought', action: 'Action', answer: 'Answer' };
/** Short turns keep the tiny model fast: its tokens are single bytes. */
const SMALL = { maxThoughtChars: 60, maxInputChars: 30, maxAnswerChars: 60 };
/** The shape of node-llama-cpp 3.21's JSON Schema grammars. */
const JSON_GRAMMAR = 'root ::= "{" rule0 "}" "\\n\\n\\n\\n" [\\n]*\nrule0 ::= "\\"a\\"" ":" [0-9]+';

describe('toLlamaJsonSchema: a JSON Schema in the subset node-llama-cpp reads', () => {
  it('keeps what the subset reads alike and widens the rest', () => {
    const schema = toLlamaJsonSchema(
      z.toJSONSchema(
        z.object({
          total: z.number().min(0),
          note: z.email().optional(),
          day: z.iso.date(),
          kind: z.enum(['a', 'b']),
          maybe: z.boolean().nullable(),
          tags: z.array(z.string().max(5)).max(3),
          map: z.record(z.string(), z.number()),
        }),
      ),
    );
    assert.deepEqual(schema, {
      type: 'object',
      properties: {
        total: { type: 'number' },
        // An unknown format would allow only "" in the subset: it is dropped (validation checks it).
        note: { type: 'string' },
        day: { type: 'string', format: 'date' },
        kind: { enum: ['a', 'b'] },
        // anyOf would be ignored (null only): it becomes oneOf.
        maybe: { oneOf: [{ type: 'boolean' }, { type: 'null' }] },
        tags: { type: 'array', items: { type: 'string', maxLength: 5 }, maxItems: 3 },
        map: { type: 'object', properties: {}, additionalProperties: { type: 'number' } },
      },
    });
  });

  it('turns a self-reference into a definition, and an empty schema into any JSON value', () => {
    const Tree: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(Tree);
      },
    });
    const tree = toLlamaJsonSchema(z.toJSONSchema(Tree));
    assert.equal(tree.$ref, '#/$defs/taoloop-root');
    assert.deepEqual((tree.$defs as Record<string, unknown>)['taoloop-root'], {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/$defs/taoloop-root' } },
      },
    });
    const any = toLlamaJsonSchema({});
    assert.ok(Array.isArray(any.oneOf) && any.oneOf.length === 3, JSON.stringify(any));
    assert.deepEqual(toLlamaJsonSchema({ type: ['string', 'null'] }), {
      oneOf: [{ type: 'string' }, { type: 'null' }],
    });
  });
});

describe('turnGrammar with a typed answer', () => {
  it('puts the JSON grammar under the answer label, renamed, without its trailing newlines, and offers no finish', () => {
    const grammar = turnGrammar({ tools: ['search'], labels: ENGLISH }, {}, JSON_GRAMMAR);
    assert.match(grammar, /^answer ::= "Answer: " answer-json "\\n"\?$/m);
    assert.match(grammar, /^answer-json ::= "\{" rule0 "\}"$/m);
    assert.match(grammar, /^rule0 ::= /m);
    assert.match(grammar, /^tool ::= "search"$/m);
    assert.doesNotMatch(grammar, /finish/);
    // With no tools the turn can only answer.
    const only = turnGrammar({ tools: [], labels: ENGLISH }, {}, JSON_GRAMMAR);
    assert.match(only, /^root ::= "Thought: " thought "\\n" answer$/m);
    assert.doesNotMatch(only, /^action ::=/m);
  });

  it('refuses a grammar of another shape, or one whose rules clash with the turn', () => {
    assert.throws(() => answerJsonRules('root ::= "x"'), /unexpected JSON Schema grammar/);
    assert.throws(() => answerJsonRules(`${JSON_GRAMMAR}\nthought ::= "x"`), /defines the rule "thought"/);
  });
});

describe('typed answers on the tiny GGUF (node-llama-cpp, CPU)', () => {
  let dir: string;
  let model: LocalModel;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'taoloop-tiny-typed-'));
    // Steered away from `c` (the c of Action): it answers at once, which is what is tested here.
    model = await localModel(ensureTinyGguf(join(dir, 'answers.gguf'), { discourage: 'c' }), {
      grammarLimits: SMALL,
    });
  });
  after(async () => {
    await model?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const Tree: z.ZodType = z.object({
    name: z.string().max(5),
    get children() {
      return z.array(Tree).max(2);
    },
  });
  const schemas = {
    number: z.object({ totalUsd: z.number() }),
    mixed: z.object({
      kind: z.enum(['yes', 'no']),
      ok: z.boolean(),
      note: z.string().max(12),
      list: z.array(z.number()).max(2),
      day: z.iso.date(),
    }),
    union: z.union([z.object({ a: z.boolean() }), z.literal('none')]),
    recursive: Tree,
  };

  for (const [name, output] of Object.entries(schemas)) {
    it(`answers JSON that validates against the schema (${name})`, async () => {
      const result = await runAgent({
        model,
        tools: [calculator],
        question: 'How much?',
        output,
        maxSteps: 3,
      });
      assert.equal(
        result.status,
        'answered',
        `${result.error}\n${result.steps.map((s) => s.modelText).join('\n')}`,
      );
      const turn = parseTurn(result.steps.at(-1)!.modelText, { tools: ['calculator'] });
      assert.equal(turn.type, 'answer');
      const parsed = output.safeParse(JSON.parse(turn.type === 'answer' ? turn.text : ''));
      assert.ok(parsed.success, turn.type === 'answer' ? turn.text : '');
      assert.deepEqual(result.output, parsed.data);
      // Every answer of the run was valid: no correction was needed.
      assert.equal(result.steps.length, 1, result.steps.map((s) => s.modelText).join('\n'));
    });
  }

  it('without the schema in the grammar, the same model does not answer JSON (the control)', async () => {
    const withoutSchema: Model = {
      id: model.id,
      contextWindowTokens: model.contextWindowTokens,
      generate: (request) =>
        model.generate({
          ...request,
          ...(request.turnFormat && {
            turnFormat: { tools: request.turnFormat.tools, labels: request.turnFormat.labels },
          }),
        }),
    };
    const result = await runAgent({
      model: withoutSchema,
      tools: [calculator],
      question: 'How much?',
      output: schemas.number,
      maxSteps: 3,
    });
    assert.notEqual(result.status, 'answered');
    assert.equal(result.output, undefined);
  });

  it('llama.cpp compiles the merged grammar of each schema', async () => {
    const { llama } = await loadModelOnce(model.path);
    for (const output of Object.values(schemas)) {
      const json = await llama.createGrammarForJsonSchema(toLlamaJsonSchema(z.toJSONSchema(output)) as never);
      const grammar = turnGrammar({ tools: ['calculator'], labels: ENGLISH }, SMALL, json.grammar);
      await assert.doesNotReject(llama.createGrammar({ grammar }));
    }
  });
});
