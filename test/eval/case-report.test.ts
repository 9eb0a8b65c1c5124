/**
 * The outputs: JUnit XML read back by a real JUnit parser (junit2json, on xml2js/sax in strict mode) with
 * hostile model text in it, a well-formedness check of our own for the JUnit XML and the SVG, the
 * Markdown report and the JSON object.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse, type TestSuites } from 'junit2json';
import {
  casesJson,
  renderCasesMarkdown,
  renderCasesSvg,
  renderJUnitXml,
} from '../../src/eval/case-report.js';
import type { CaseTrial } from '../../src/eval/cases.js';
import { compareConfigs, summarizeTrials } from '../../src/eval/pass-k.js';

/** Model text that breaks naive XML and Markdown: markup, entities, CDATA end, NUL, an ANSI escape, a lone surrogate. */
const HOSTILE = '<b>Tom & "Jerry"</b> ]]> \u0000 \u001b[31mred\u001b[0m \ud800 | end \uFFFE';
/** What of it XML 1.0 can carry. */
const HOSTILE_KEPT = '<b>Tom & "Jerry"</b> ]]>  [31mred[0m  | end ';
/** Characters XML 1.0 forbids, for asserting that none is left. */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function trial(caseId: string, n: number, passed: boolean, extra: Partial<CaseTrial> = {}): CaseTrial {
  return {
    caseId,
    trial: n,
    config: 'gpt-4o-mini',
    modelId: 'openai:gpt-4o-mini',
    status: 'answered',
    answer: passed ? 'Paris' : HOSTILE,
    passed,
    checks: [
      { name: 'status', passed: true, detail: 'answered' },
      {
        name: 'answer',
        passed,
        detail: passed ? 'expected "Paris", got "Paris"' : `expected "Paris", got ${HOSTILE}`,
      },
    ],
    steps: 3,
    toolCalls: ['search'],
    usage: { inputTokens: 1000, outputTokens: 50 },
    costUsd: 0.0002,
    durationMs: 1500,
    trace: `traces/${caseId}-${n}.jsonl`,
    ...extra,
  };
}

const trials = [
  ...[0, 1, 2, 3].map((n) => trial('capital', n, n !== 2)),
  ...[0, 1, 2, 3].map((n) => trial('math', n, true)),
  ...[0, 1, 2, 3].map((n) =>
    trial('weird <id> & "q"', n, false, { status: 'error', answer: null, error: `model failed: ${HOSTILE}` }),
  ),
];
const summary = summarizeTrials(trials, {
  k: 4,
  caseIds: ['capital', 'math', 'weird <id> & "q"', 'not-run'],
});

/**
 * A small strict well-formedness check: one root, balanced tags, attribute values without `<`, every `&`
 * an entity or character reference, no `]]>` in text, no character XML 1.0 forbids.
 */
function assertWellFormed(xml: string) {
  assert.doesNotMatch(xml, NOT_XML);
  const body = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '');
  const token = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|[^<]+/y;
  const badAmp = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  const stack: string[] = [];
  let roots = 0;
  for (let at = 0; at < body.length; ) {
    token.lastIndex = at;
    const m = token.exec(body);
    assert.ok(m, `not XML at ${at}: ${JSON.stringify(body.slice(at, at + 40))}`);
    const [whole, close, name, attrs, selfClose] = m;
    assert.doesNotMatch(whole, badAmp, `a bare & in ${JSON.stringify(whole)}`);
    if (name === undefined) {
      assert.ok(!whole.includes(']]>'), 'text holds ]]>');
      assert.ok(stack.length > 0 || whole.trim() === '', 'text outside the root');
    } else if (close) assert.equal(stack.pop(), name, `</${name}> closes the wrong tag`);
    else {
      if (stack.length === 0) roots++;
      if (!selfClose) stack.push(name);
      // A conforming parser turns a raw tab or newline in an attribute into a space: they must be references.
      assert.doesNotMatch(attrs ?? '', /="[^"]*[\t\n\r]/, `raw whitespace in an attribute of <${name}>`);
      const names = [...(attrs ?? '').matchAll(/([\w:.-]+)=/g)].map((a) => a[1]);
      assert.equal(new Set(names).size, names.length, `repeated attribute in <${name}>`);
    }
    at = token.lastIndex;
  }
  assert.deepEqual(stack, []);
  assert.equal(roots, 1);
}

describe('renderJUnitXml', () => {
  test('a real JUnit parser reads it back, hostile text included', async () => {
    const xml = renderJUnitXml(summary, { suiteName: 'my <suite>' });
    assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites '));
    assertWellFormed(xml);
    const parsed = (await parse(xml)) as TestSuites;
    assert.equal(parsed.name, 'my <suite>');
    assert.equal(parsed.tests, 4);
    assert.equal(parsed.failures, 2);
    assert.equal(parsed.testsuite?.length, 1);
    const suite = parsed.testsuite![0]!;
    assert.equal(suite.name, 'gpt-4o-mini');
    assert.equal(suite.tests, 4);
    assert.equal(suite.failures, 2);
    assert.equal(suite.skipped, 1);
    assert.equal(suite.time, 18);
    const cases = suite.testcase!;
    assert.deepEqual(
      cases.map((c) => [c.name, c.classname, c.time]),
      [
        ['capital', 'gpt-4o-mini', 6],
        ['math', 'gpt-4o-mini', 6],
        ['weird <id> & "q"', 'gpt-4o-mini', 6],
        ['not-run', 'gpt-4o-mini', 0],
      ],
    );
    const [capital, math, weird, notRun] = cases as [
      (typeof cases)[0],
      (typeof cases)[0],
      (typeof cases)[0],
      (typeof cases)[0],
    ];
    assert.equal(math.failure, undefined);
    assert.deepEqual(
      capital.failure?.map((f) => [f.message, f.type]),
      [['passed 3 of 4 tries', 'pass^k']],
    );
    assert.equal(
      capital.failure![0]!.inner,
      `try 3: status answered\n  answer: expected "Paris", got ${HOSTILE_KEPT}`,
    );
    assert.equal(weird.failure![0]!.message, 'passed 0 of 4 tries');
    const body = weird.failure![0]!.inner ?? '';
    assert.equal(body.split('try ').length - 1, 4, 'each failing try is listed');
    assert.ok(body.includes(`model failed: ${HOSTILE_KEPT}`), body);
    assert.deepEqual(capital['system-out'], [
      [
        'try 1: traces/capital-0.jsonl',
        'try 2: traces/capital-1.jsonl',
        'try 3: traces/capital-2.jsonl',
        'try 4: traces/capital-3.jsonl',
      ].join('\n'),
    ]);
    assert.equal(notRun.failure, undefined);
    assert.deepEqual(notRun.skipped, [{ message: 'no tries' }]);
  });

  test('one suite per configuration; attributes keep newlines and tabs', async () => {
    const other = summarizeTrials(
      [0, 1].map((n) => trial('line\nbreak\tand tab', n, true, { config: 'b', durationMs: 250 })),
      { k: 2 },
    );
    const xml = renderJUnitXml([summary, other]);
    assertWellFormed(xml);
    const parsed = (await parse(xml)) as TestSuites;
    assert.equal(parsed.name, 'taoloop cases');
    assert.equal(parsed.tests, 5);
    assert.deepEqual(
      parsed.testsuite!.map((s) => [s.name, s.tests, s.failures]),
      [
        ['gpt-4o-mini', 4, 2],
        ['b', 1, 0],
      ],
    );
    assert.equal(parsed.testsuite![1]!.testcase![0]!.name, 'line\nbreak\tand tab');
    assert.equal(parsed.testsuite![1]!.testcase![0]!.time, 0.5);
  });
});

describe('renderCasesSvg', () => {
  test('well-formed, one line per configuration, labels escaped', async () => {
    const b = summarizeTrials(
      trials.map((t) => ({ ...t, config: 'b <new> & "better"', passed: true })),
      { k: 4 },
    );
    const svg = renderCasesSvg([summary, b]);
    assertWellFormed(svg);
    assert.equal(await parse(svg), undefined, 'a strict XML parser reads it (not JUnit, so no result)');
    assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
    assert.match(svg, /pass\^k against k/);
    assert.match(svg, />k \(tries that must all pass\)</);
    // The first summary has a case with no tries, so no pass^k is known: no points, only its legend.
    assert.equal(svg.match(/<polyline /g)?.length, 1);
    assert.equal(svg.match(/<circle /g)?.length, 3);
    assert.equal(svg.match(/stroke-width="2"\/>/g)?.length, 1 + 2, 'one line, two legend keys');
    // A summary whose pass^k is known for k = 1 only: one point, no line.
    const single = renderCasesSvg([summarizeTrials([trial('capital', 0, true)], { k: 8 })]);
    assert.equal(single.match(/<circle /g)?.length, 1);
    assert.equal(single.match(/<polyline /g), null);
    assert.match(single, /<title>gpt-4o-mini: pass\^1 100\.0%<\/title>/);
    assert.ok(svg.includes('b &lt;new&gt; &amp; "better"'));
    for (const k of [1, 2, 4]) assert.match(svg, new RegExp(`text-anchor="middle">${k}</text>`));
    assertWellFormed(renderCasesSvg([]));
  });
});

describe('renderCasesMarkdown', () => {
  test('headline table, failing cases with details and traces, the comparison', () => {
    const better = trials.map((t) => ({ ...t, config: 'b', passed: true }));
    const comparison = compareConfigs(trials, better, { resamples: 500 });
    const md = renderCasesMarkdown(summary, { comparison });
    assert.ok(md.startsWith('# Cases: gpt-4o-mini\n'));
    for (const row of [
      '| tasks | 4 |',
      '| tries per task | 0–4 |',
      '| pass^1 | — |',
      '| pass rate (all tries) | 58.3% |',
      '| cost per task (one try) | $0.0002 |',
      '| total cost | $0.0024 |',
      '| latency p50 / p95 | 1.5 s / 1.5 s |',
      '| steps p50 / p95 | 3 / 3 |',
    ])
      assert.ok(md.includes(row), `missing ${row}`);
    assert.match(md, /## Failing cases \(2 of 4\)/);
    assert.match(md, /### capital: passed 3 of 4 tries/);
    assert.match(md, /- try 3, status answered \(trace: traces\/capital-2\.jsonl\)/);
    assert.ok(md.includes('### weird \\<id\\> & "q": passed 0 of 4 tries'));
    assert.ok(md.includes('\\<b\\>Tom & "Jerry"\\</b\\> \\]\\]\\> \\[31mred\\[0m \\| end'), md);
    assert.doesNotMatch(md, NOT_XML);
    // Each table keeps its column count: model text cannot add a cell.
    const tables = md.split('\n\n').filter((block) => block.startsWith('|'));
    assert.equal(tables.length, 2);
    for (const table of tables) {
      const pipes = table.split('\n').map((line) => line.replace(/\\\|/g, '').split('|').length);
      assert.equal(new Set(pipes).size, 1, table);
    }
    assert.match(md, /## Comparison: gpt-4o-mini \(a\) and b \(b\)/);
    assert.match(md, /\| pass rate \| 58\.3% \| 100\.0% \| \+41\.7% \| 0\.0% to \+75\.0% \|/);
    assert.match(md, /No clear difference in pass rate: the 95% interval contains 0\./);
  });

  test('a clear comparison names the better configuration', () => {
    const many = (config: string, passed: boolean) =>
      Array.from({ length: 20 }, (_, i) => trial(`case ${i}`, 0, passed, { config }));
    const comparison = compareConfigs(many('old', false), many('new | 2', true), { resamples: 200 });
    const md = renderCasesMarkdown(summarizeTrials(many('old', false), { k: 1 }), {
      comparison,
      title: 'Nightly',
    });
    assert.ok(md.startsWith('# Nightly\n'));
    assert.match(md, /\| pass rate \| 0\.0% \| 100\.0% \| \+100\.0% \| \+100\.0% to \+100\.0% \|/);
    assert.match(md, /b \(new \\\| 2\) has the higher pass rate: the 95% interval excludes 0\./);
    assert.match(md, /Paired bootstrap over cases, 200 resamples, seed 1\./);
  });
});

describe('casesJson', () => {
  test('unknown values are left out, not written as null or undefined', () => {
    const noCost = summarizeTrials(
      trials.map(({ costUsd: _, ...t }) => t),
      { k: 4, caseIds: ['capital', 'not-run'] },
    );
    const out = casesJson(noCost, compareConfigs(trials, trials, { resamples: 50 }));
    assert.deepEqual(JSON.parse(JSON.stringify(out)), out, 'no undefined anywhere');
    const s = out.summary as Record<string, unknown>;
    assert.equal('costPerTaskUsd' in s, false);
    assert.equal('totalCostUsd' in s, false);
    assert.deepEqual(s.passK, [{ k: 1 }, { k: 2 }, { k: 4 }]);
    assert.equal(s.passRate, 0.75);
    assert.equal((out.comparison as Record<string, unknown>).better, 'neither');
    assert.equal('comparison' in casesJson(noCost), false);
  });
});
