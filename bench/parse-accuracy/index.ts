/**
 * parse-accuracy: how often a parser reads a model turn the way it was meant, taoloop's `parseTurn` against
 * LangChain.js's ReAct output parser, on a hand-written corpus of hard turns (issue 3's list) and on the
 * model turns of the ReAct paper's recorded GPT-3 FEVER runs. Report on stderr, figures on stdout.
 *
 * Streamed mode (issue 16): every turn is also fed in random chunks through the stream cut and the parser,
 * which must give the same turn as the whole turn; `--streamed` runs only that check.
 *
 * Run: `npm run bench -- parse-accuracy` (or `node --import tsx bench/parse-accuracy/index.ts [--streamed]`).
 */
import { emitFigure, ratioOf } from '../lib/protocol.js';
import { type Case, type Expected, loadCorpus, loadRecorded } from './cases.js';
import { loadLangChain, type Parsed, type Parser, taoloop } from './parsers.js';
import { checkPrinted, PRINT_CHUNKINGS_PER_TURN } from './printed.js';
import { CHUNKINGS_PER_TURN, checkStreamed } from './streamed.js';

const COMMAND = 'npm run bench -- parse-accuracy';

interface Scored {
  turn: Case;
  got: Parsed;
  right: boolean;
}

function isRight(expect: Expected, got: Parsed): boolean {
  switch (expect.type) {
    case 'action':
      return got.type === 'action' && got.tool === expect.tool && got.input.trim() === expect.input.trim();
    case 'answer':
      return got.type === 'answer' && got.text.trim() === expect.text.trim();
    case 'none':
      return got.type === 'none';
    default:
      return expect satisfies never;
  }
}

async function score(parser: Parser, turns: readonly Case[]): Promise<Scored[]> {
  const scored: Scored[] = [];
  for (const turn of turns) {
    const got = await parser.parse(turn);
    scored.push({ turn, got, right: isRight(turn.expect, got) });
  }
  return scored;
}

const countRight = (scored: readonly Scored[]) => scored.filter((s) => s.right).length;
const percent = (right: number, total: number) => (total === 0 ? 0 : (100 * right) / total);
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
const log = (line = '') => process.stderr.write(`${line}\n`);

function printKinds(
  kinds: readonly string[],
  ours: readonly Scored[],
  theirs: readonly Scored[],
  peer: string,
) {
  const rows = kinds.map((kind) => {
    const a = ours.filter((s) => s.turn.kind === kind);
    const b = theirs.filter((s) => s.turn.kind === kind);
    return [kind, String(a.length), `${countRight(a)}/${a.length}`, `${countRight(b)}/${b.length}`];
  });
  const header = ['kind', 'turns', 'taoloop', peer];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
  log(line(header));
  for (const row of rows) log(line(row));
}

function printMisses(title: string, scored: readonly Scored[]) {
  const misses = scored.filter((s) => !s.right);
  log(`${title}: ${misses.length}`);
  for (const { turn, got } of misses) {
    log(`- ${turn.id}${turn.language ? ` (labels: ${turn.language})` : ''}`);
    log(`  text:     ${JSON.stringify(turn.text)}`);
    log(`  expected: ${JSON.stringify(turn.expect)}`);
    log(`  got:      ${JSON.stringify(got)}`);
  }
}

/** The streamed mode: the share of turns read the same in every chunking, against the whole-turn parse. */
function streamedMode(turns: readonly Case[]): void {
  const { same, misses } = checkStreamed(turns);
  log(
    `streamed: ${same}/${turns.length} turns read the same as the whole turn in ${CHUNKINGS_PER_TURN} random chunkings each`,
  );
  for (const miss of misses) {
    log(`- ${miss.turn.id}: chunks ${JSON.stringify(miss.chunks)}`);
    log(`  streamed: ${JSON.stringify(miss.streamed)}`);
    log(`  whole:    ${JSON.stringify(miss.whole)}`);
  }
  const value = percent(same, turns.length);
  emitFigure({
    figure: 'streamed parse = whole-turn parse (taoloop, random chunks)',
    value: round(value, 1),
    unit: '%',
    against: 'self',
    baseline: 'the same turns parsed whole',
    baselineValue: 100,
    ratio: round(value / 100, 3),
    command: `${COMMAND} (or node --import tsx bench/parse-accuracy/index.ts --streamed)`,
    goal: '100% (issue 16)',
    met: misses.length === 0,
  });
  printedMode(turns);
}

/**
 * The CLI's streamed print: turns whose screen, streamed in random chunks, is what the whole turn prints.
 * Turns that contradict themselves are printed again whole below what streamed, and count as misses here.
 */
function printedMode(turns: readonly Case[]): void {
  const { same, reprinted, misses } = checkPrinted(turns);
  log(
    `printed: ${same}/${turns.length} turns streamed to the screen exactly as printed whole (one character at a time and ${PRINT_CHUNKINGS_PER_TURN} random chunkings each)`,
  );
  log(
    `  printed again whole below what streamed (turns that contradict themselves): ${reprinted.join(', ') || 'none'}`,
  );
  for (const miss of misses) {
    log(`- ${miss.id}: chunks ${JSON.stringify(miss.chunks)}`);
    log(`  printed: ${JSON.stringify(miss.printed)}`);
    log(`  whole:   ${JSON.stringify(miss.whole)}`);
  }
  const value = percent(same, turns.length);
  emitFigure({
    figure: 'CLI streamed print = whole-turn print (taoloop, random chunks)',
    value: round(value, 1),
    unit: '%',
    against: 'self',
    baseline: 'the same turns printed whole (--no-stream)',
    baselineValue: 100,
    ratio: round(value / 100, 3),
    command: `${COMMAND} (or node --import tsx bench/parse-accuracy/index.ts --streamed)`,
    goal: 'every turn but those that contradict themselves (issue 16 item 6)',
    met: misses.length === 0,
  });
}

async function main() {
  const corpus = loadCorpus();
  const recorded = loadRecorded();
  if (process.argv.includes('--streamed')) {
    streamedMode([...corpus, ...recorded.cases]);
    return;
  }
  const langchain = await loadLangChain();
  const peer = langchain.name;
  const baseline = `${peer} ReActSingleInputOutputParser`;

  const ours = { hard: await score(taoloop, corpus), recorded: await score(taoloop, recorded.cases) };
  const theirs = { hard: await score(langchain, corpus), recorded: await score(langchain, recorded.cases) };

  log(`parse-accuracy: ${corpus.length} hard turns (bench/parse-accuracy/corpus.jsonl),`);
  log(`${recorded.cases.length} recorded GPT-3 FEVER turns (${recorded.source})`);
  log();
  printKinds(
    [...new Set(corpus.map((c) => c.kind)), 'recorded'],
    [...ours.hard, ...ours.recorded],
    [...theirs.hard, ...theirs.recorded],
    peer,
  );
  log();
  for (const [label, a, b] of [
    ['hard corpus', ours.hard, theirs.hard],
    ['recorded runs', ours.recorded, theirs.recorded],
    ['overall', [...ours.hard, ...ours.recorded], [...theirs.hard, ...theirs.recorded]],
  ] as const) {
    const pa = percent(countRight(a), a.length).toFixed(1);
    const pb = percent(countRight(b), b.length).toFixed(1);
    log(`${label.padEnd(14)} taoloop ${pa.padStart(5)}%   ${peer} ${pb.padStart(5)}%   (${a.length} turns)`);
  }
  log();
  printMisses('taoloop misses on the hard corpus', ours.hard);
  printMisses('taoloop misses on the recorded runs', ours.recorded);
  log();
  streamedMode([...corpus, ...recorded.cases]);

  for (const [name, a, b] of [
    ['hard corpus', ours.hard, theirs.hard],
    [recorded.sample ? 'recorded runs, 15-run sample' : 'recorded runs', ours.recorded, theirs.recorded],
  ] as const) {
    const value = percent(countRight(a), a.length);
    const baselineValue = percent(countRight(b), b.length);
    const ratio = ratioOf(value, baselineValue);
    emitFigure({
      figure: `parse accuracy, ${name} (taoloop)`,
      value: round(value, 1),
      unit: '%',
      against: 'peer',
      baseline,
      baselineValue: round(baselineValue, 1),
      ratio: ratio === null ? null : round(ratio, 2),
      command: COMMAND,
      goal: '100% (issue 3)',
      met: countRight(a) === a.length,
    });
  }
}

await main();
