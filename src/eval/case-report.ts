/**
 * The outputs of a cases run: a Markdown report, a JSON object, an SVG chart of pass^k against k, and
 * JUnit XML for CI. Pure string builders; the caller writes the files.
 *
 * @module
 */
import type { CaseTrial } from './cases.js';
import type { CasesSummary, ConfigComparison, MetricComparison } from './pass-k.js';

/** Characters XML 1.0 forbids: C0 controls but tab, LF, CR; lone surrogates; U+FFFE and U+FFFF. */
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text content: forbidden characters dropped, `& < >` escaped (so `]]>` cannot occur), CR kept as `&#13;`. */
const xmlText = (text: string) =>
  text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#13;');

/** An attribute value in double quotes; tab and newlines as character references so they survive. */
const xmlAttr = (text: string) =>
  xmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;');

/** One line of Markdown text: controls dropped, whitespace squeezed, Markdown and HTML syntax escaped, at most 300 characters. */
function md(text: string): string {
  const line = text.replace(NOT_XML, '').replace(/\s+/g, ' ').trim();
  const short = line.length > 300 ? `${line.slice(0, 300)}…` : line;
  return short.replace(/[\\`*_[\]<>|~]/g, '\\$&');
}

const pct = (value: number | undefined) => (value === undefined ? '—' : `${(value * 100).toFixed(1)}%`);
const usd = (value: number | undefined) => (value === undefined ? '—' : `$${Number(value.toPrecision(3))}`);
const ms = (value: number | undefined) =>
  value === undefined ? '—' : value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
const num = (value: number | undefined) => (value === undefined ? '—' : String(value));
const signed = (value: number, format: (v: number) => string) =>
  `${value > 0 ? '+' : value < 0 ? '−' : ''}${format(Math.abs(value))}`;

/** The failed checks of one try, one line each, and its error when no check names it. */
/** A try that failed because the model (or its server) failed: it ended `error`, and its status check failed. */
function modelError(trial: CaseTrial): boolean {
  return trial.status === 'error' && trial.checks.some((c) => c.name === 'status' && !c.passed);
}

/** A recorded run replayed by `taoloop test`, for {@link renderJUnitXml}. */
export interface RecordedRunResult {
  /** The trace file. */
  file: string;
  passed: boolean;
  /** One line: what diverged. */
  message: string;
  /** The whole diff. */
  detail: string;
  durationMs: number;
}

function failedChecks(trial: CaseTrial): string[] {
  const lines = trial.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.detail}`);
  if (trial.error !== undefined && !lines.some((l) => l.includes(trial.error ?? '')))
    lines.push(`error: ${trial.error}`);
  return lines;
}

function comparisonMarkdown(c: ConfigComparison): string[] {
  const level = `${Math.round(c.confidence * 100)}%`;
  const lines = [`## Comparison: ${md(c.configA)} (a) and ${md(c.configB)} (b)`, ''];
  lines.push(`Paired cases: ${c.cases.length}.`);
  if (c.unpaired.onlyA.length) lines.push(`Only in a (left out): ${c.unpaired.onlyA.map(md).join(', ')}.`);
  if (c.unpaired.onlyB.length) lines.push(`Only in b (left out): ${c.unpaired.onlyB.map(md).join(', ')}.`);
  lines.push('');
  const row = (name: string, m: MetricComparison | undefined, format: (v: number) => string) =>
    m &&
    `| ${name} | ${format(m.meanA)} | ${format(m.meanB)} | ${signed(m.difference, format)} | ` +
      `${signed(m.interval.low, format)} to ${signed(m.interval.high, format)} |`;
  const rows = [row('pass rate', c.passRate, pct), row('cost per try', c.costPerTryUsd, usd)].filter(
    (r) => r,
  );
  if (rows.length)
    lines.push(`| | a | b | b − a | ${level} interval |`, '|---|---|---|---|---|', ...(rows as string[]), '');
  const verdict =
    c.better === 'neither'
      ? `No clear difference in pass rate: the ${level} interval contains 0.`
      : `${c.better} (${md(c.better === 'a' ? c.configA : c.configB)}) has the higher pass rate: the ${level} interval excludes 0.`;
  lines.push(c.passRate ? verdict : 'No case was tried by both.', '');
  lines.push(`Paired bootstrap over cases, ${c.resamples} resamples, seed ${c.seed}.`, '');
  return lines;
}

/**
 * A Markdown report: the headline table (tasks, tries per task, pass^k for each k, pass rate, cost per
 * task, tokens, p50/p95 latency and steps), the failing cases with each failed try's failed checks and
 * trace path, and the comparison when given. Model text is put on one line and escaped.
 *
 * @param options.title - @default `Cases: <config>`
 */
export function renderCasesMarkdown(
  summary: CasesSummary,
  options: { comparison?: ConfigComparison; title?: string } = {},
): string {
  const s = summary;
  const perTask =
    s.trialsPerTask.min === s.trialsPerTask.max
      ? `${s.trialsPerTask.max}`
      : `${s.trialsPerTask.min}–${s.trialsPerTask.max}`;
  const lines = [`# ${md(options.title ?? `Cases: ${s.config}`)}`, '', '| figure | value |', '|---|---|'];
  const row = (name: string, value: string) => lines.push(`| ${name} | ${value} |`);
  row('configuration', md(s.config) || '—');
  row('model', s.modelIds.map(md).join(', ') || '—');
  row('tasks', String(s.tasks));
  row('tries per task', perTask);
  for (const { k, value } of s.passK) row(`pass^${k}`, pct(value));
  row('pass rate (all tries)', pct(s.passRate));
  row('cost per task (one try)', usd(s.costPerTaskUsd));
  row('total cost', usd(s.totalCostUsd));
  row('tokens (input / output)', `${num(s.tokens.input)} / ${num(s.tokens.output)}`);
  row('latency p50 / p95', `${ms(s.latencyMs.p50)} / ${ms(s.latencyMs.p95)}`);
  row('steps p50 / p95', `${num(s.steps.p50)} / ${num(s.steps.p95)}`);
  lines.push(
    '',
    `pass^k: the chance that k tries of a case all pass (τ-bench); — when a case has fewer than k tries.`,
    '',
  );
  lines.push(`## Failing cases (${s.failing.length} of ${s.tasks})`, '');
  if (s.failing.length === 0) lines.push('Every try of every case passed.', '');
  for (const c of s.failing) {
    lines.push(`### ${md(c.caseId)}: passed ${c.passes} of ${c.trials} tries`, '');
    for (const t of c.failing) {
      const trace = t.trace === undefined ? '' : ` (trace: ${md(t.trace)})`;
      lines.push(`- try ${t.trial + 1}, status ${t.status}${trace}`);
      for (const line of failedChecks(t)) lines.push(`  - ${md(line)}`);
    }
    lines.push('');
  }
  if (options.comparison) lines.push(...comparisonMarkdown(options.comparison));
  return lines.join('\n');
}

/** A value `JSON.stringify` writes as it is. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A copy fit for JSON: `undefined` fields and non-finite numbers omitted (never written as `null`). */
function plain(value: unknown): JsonValue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map((item) => plain(item) ?? null);
  if (typeof value !== 'object') return undefined;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return plain(toJSON.call(value));
  const out: { [key: string]: JsonValue } = {};
  for (const [key, item] of Object.entries(value)) {
    const copy = plain(item);
    if (copy !== undefined) out[key] = copy;
  }
  return out;
}

/**
 * The summary (and the comparison, when given) as a plain JSON-ready object: unknown values (an
 * `undefined` pass^k, cost, percentile) are left out rather than written as `null`.
 */
export function casesJson(
  summary: CasesSummary,
  comparison?: ConfigComparison,
): { summary: JsonValue; comparison?: JsonValue } {
  const out: { summary: JsonValue; comparison?: JsonValue } = { summary: plain(summary) ?? {} };
  if (comparison) out.comparison = plain(comparison) ?? {};
  return out;
}

const WIDTH = 640;
const HEIGHT = 400;
const PAD = { left: 64, right: 150, top: 40, bottom: 56 };
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2'];

/**
 * A chart of pass^k against k (log scale, one tick per reported k), one line per configuration, with a
 * legend; a hand-written SVG in the style of the eval report's chart. Unknown values are left out.
 */
export function renderCasesSvg(summaries: readonly CasesSummary[]): string {
  const ks = [...new Set(summaries.flatMap((s) => s.passK.map((p) => p.k)))].sort((a, b) => a - b);
  const kMax = Math.max(1, ...ks);
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const px = (k: number) =>
    kMax === 1 ? PAD.left + plotW / 2 : PAD.left + (Math.log2(k) / Math.log2(kMax)) * plotW;
  const py = (y: number) => PAD.top + (1 - y) * plotH;
  const f = (n: number) => n.toFixed(1);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15">pass^k against k</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const y = i / 4;
    parts.push(
      `<line x1="${PAD.left}" y1="${f(py(y))}" x2="${PAD.left + plotW}" y2="${f(py(y))}" stroke="#ddd"/>`,
      `<text x="${PAD.left - 8}" y="${f(py(y) + 4)}" text-anchor="end">${Math.round(y * 100)}%</text>`,
    );
  }
  for (const k of ks)
    parts.push(`<text x="${f(px(k))}" y="${f(py(0) + 18)}" text-anchor="middle">${k}</text>`);
  parts.push(
    `<line x1="${PAD.left}" y1="${py(0)}" x2="${PAD.left + plotW}" y2="${py(0)}" stroke="#333"/>`,
    `<line x1="${PAD.left}" y1="${py(0)}" x2="${PAD.left}" y2="${py(1)}" stroke="#333"/>`,
    `<text x="${PAD.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">k (tries that must all pass)</text>`,
    `<text x="16" y="${PAD.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${PAD.top + plotH / 2})">pass^k</text>`,
  );
  if (summaries.length === 0)
    parts.push(
      `<text x="${PAD.left + plotW / 2}" y="${PAD.top + plotH / 2}" text-anchor="middle">no data</text>`,
    );
  summaries.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const full = s.config || `configuration ${i + 1}`;
    // The legend has 140 px: a longer label is cut in the middle (its end, the model name, stays).
    const label = xmlText(full.length > 22 ? `${full.slice(0, 8)}…${full.slice(-13)}` : full);
    const points = s.passK.flatMap((p) =>
      p.value === undefined ? [] : [{ k: p.k, x: px(p.k), y: py(p.value), value: p.value }],
    );
    if (points.length > 1)
      parts.push(
        `<polyline points="${points.map((p) => `${f(p.x)},${f(p.y)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`,
      );
    for (const p of points)
      parts.push(
        `<circle cx="${f(p.x)}" cy="${f(p.y)}" r="4" fill="${color}"><title>${label}: pass^${p.k} ${pct(p.value)}</title></circle>`,
      );
    const ly = PAD.top + 10 + i * 18;
    parts.push(
      `<line x1="${WIDTH - PAD.right + 16}" y1="${ly}" x2="${WIDTH - PAD.right + 36}" y2="${ly}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${WIDTH - PAD.right + 42}" y="${ly + 4}" fill="${color}">${label}</text>`,
    );
  });
  parts.push('</svg>', '');
  return parts.join('\n');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * JUnit XML for CI: one `<testsuite>` per configuration (named by its config), one `<testcase>` per case
 * (`classname` the config, `time` the seconds of all its tries). A case fails unless every try passed:
 * `<failure message="passed 3 of 4 tries" type="pass^k">` whose body lists each failed try's failed checks;
 * a case with no tries is `<skipped>`. Trace paths go in `<system-out>`. Any text is escaped, and the
 * characters XML 1.0 forbids are dropped, so model output always gives well-formed XML.
 *
 * A case whose failed tries include one that ended with a model error (status `error`, not expected) is an
 * `<error>` instead: the model or its server failed, not the agent. `options.recordedRuns` (the replays of
 * `taoloop test`) become one more suite, `recorded runs`, one test case per trace file.
 *
 * @param options.suiteName - the `<testsuites>` name. @default 'taoloop cases'
 */
export function renderJUnitXml(
  summaries: CasesSummary | readonly CasesSummary[],
  options: { suiteName?: string; recordedRuns?: readonly RecordedRunResult[] } = {},
): string {
  const list: readonly CasesSummary[] = Array.isArray(summaries) ? summaries : [summaries as CasesSummary];
  const suiteName = options.suiteName ?? 'taoloop cases';
  const attrs = (values: Record<string, string | number>) =>
    Object.entries(values)
      .map(([key, value]) => ` ${key}="${xmlAttr(String(value))}"`)
      .join('');
  const total = { tests: 0, failures: 0, errors: 0, skipped: 0, ms: 0 };
  const suites = list.map((s) => {
    const name = s.config || suiteName;
    const skipped = s.cases.filter((c) => c.trials === 0).length;
    const ms = s.cases.reduce((sum, c) => sum + c.durationMs, 0);
    const errors = s.failing.filter((c) => c.failing.some(modelError)).length;
    const failures = s.failing.length - errors;
    Object.assign(total, {
      tests: total.tests + s.tasks,
      failures: total.failures + failures,
      errors: total.errors + errors,
      skipped: total.skipped + skipped,
      ms: total.ms + ms,
    });
    const head = `  <testsuite${attrs({ name, tests: s.tasks, failures, errors, skipped, time: seconds(ms) })}>`;
    const cases = s.cases.map((c) => {
      const lines = [
        `    <testcase${attrs({ name: c.caseId, classname: name, time: seconds(c.durationMs) })}>`,
      ];
      if (c.trials === 0) lines.push(`      <skipped${attrs({ message: 'no tries' })}/>`);
      else if (c.passes < c.trials) {
        const body = c.failing
          .map((t) =>
            [`try ${t.trial + 1}: status ${t.status}`, ...failedChecks(t).map((l) => `  ${l}`)].join('\n'),
          )
          .join('\n');
        const message = `passed ${c.passes} of ${c.trials} tries`;
        const tag = c.failing.some(modelError) ? 'error' : 'failure';
        lines.push(
          `      <${tag}${attrs({ message, type: tag === 'error' ? 'model error' : 'pass^k' })}>${xmlText(body)}</${tag}>`,
        );
      }
      if (c.traces.length)
        lines.push(
          `      <system-out>${xmlText(c.traces.map((t) => `try ${t.trial + 1}: ${t.path}`).join('\n'))}</system-out>`,
        );
      lines.push('    </testcase>');
      return lines.join('\n');
    });
    return [head, ...cases, '  </testsuite>'].join('\n');
  });
  const runs = options.recordedRuns ?? [];
  if (runs.length > 0) {
    const failed = runs.filter((r) => !r.passed).length;
    const ms = runs.reduce((sum, r) => sum + r.durationMs, 0);
    Object.assign(total, {
      tests: total.tests + runs.length,
      failures: total.failures + failed,
      ms: total.ms + ms,
    });
    suites.push(
      [
        `  <testsuite${attrs({ name: 'recorded runs', tests: runs.length, failures: failed, errors: 0, skipped: 0, time: seconds(ms) })}>`,
        ...runs.map((r) =>
          [
            `    <testcase${attrs({ name: r.file, classname: 'recorded runs', time: seconds(r.durationMs) })}>`,
            ...(r.passed
              ? []
              : [
                  `      <failure${attrs({ message: r.message, type: 'replay' })}>${xmlText(r.detail)}</failure>`,
                ]),
            '    </testcase>',
          ].join('\n'),
        ),
        '  </testsuite>',
      ].join('\n'),
    );
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: suiteName, tests: total.tests, failures: total.failures, errors: total.errors, skipped: total.skipped, time: seconds(total.ms) })}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
