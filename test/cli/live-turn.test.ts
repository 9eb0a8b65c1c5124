/**
 * A turn printed as it streams (issue 16 item 6): the thought and the action or answer grow as chunks
 * arrive, and once the turn is complete the screen holds exactly what the whole turn prints without
 * streaming. Nothing after an invented observation, nor the start of a label that turns out to be one, is
 * ever printed; only the shortest tail that may still change is held back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { mulberry32 } from '../../scripts/lib/mulberry32.js';
import { randomChunks } from '../../scripts/lib/random-chunks.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { consumeRun } from '../../src/cli/commands/run.js';
import { LiveTurn } from '../../src/cli/live-turn.js';
import { createRenderer } from '../../src/cli/render.js';
import { turnParts } from '../../src/cli/turn-parts.js';
import {
  ENGLISH_LABELS,
  LABEL_SETS,
  type LabelLanguage,
  type LabelSet,
  mergeLabels,
  primaryLabels,
} from '../../src/react/labels.js';
import { readReply } from '../../src/react/reply.js';
import { ShownReply } from '../../src/react/settled.js';

interface CorpusTurn {
  id: string;
  kind: string;
  text: string;
  tools?: string[];
  language?: string;
}

const corpus = readFileSync(new URL('../../bench/parse-accuracy/corpus.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as CorpusTurn);

interface Printed {
  /** Everything written, in order. */
  out: string;
  /** What was on screen after each chunk. */
  after: string[];
  /** What the whole turn prints without streaming. */
  whole: string;
}

/**
 * Streams `chunks` through a LiveTurn. Compared as the screen shows it: without colour codes, which
 * picocolors turns on under `CI` even when stdout is not a terminal (a streamed turn is styled chunk by chunk).
 */
function stream(
  chunks: readonly string[],
  options: { labels?: LabelSet; tools?: readonly string[]; reasoning?: string[]; native?: boolean } = {},
): Printed {
  const labels = options.labels ?? ENGLISH_LABELS;
  const l = primaryLabels(labels);
  const tools = options.tools ?? ['search', 'lookup', 'calculator'];
  let out = '';
  const live = new LiveTurn({
    labels,
    printLabels: l,
    tools,
    showReasoning: true,
    native: options.native === true,
    write: (text) => {
      out += text;
    },
  });
  const after: string[] = [];
  for (const piece of options.reasoning ?? []) {
    live.reasoning(piece);
    after.push(out);
  }
  // What the loop says may be shown of each chunk (`model-delta`'s `shown`), as the CLI receives it.
  const reply = new ShownReply(labels);
  for (const chunk of chunks) {
    live.text(options.native === true ? chunk : reply.push(chunk).shown);
    after.push(out);
  }
  const text = chunks.join('');
  const read = readReply(text, { labels, tools });
  const reasoning = [options.reasoning?.join('').trim(), read.reasoning].filter(Boolean).join('\n\n');
  const parts = turnParts(read.turn, text, reasoning || undefined, l);
  live.finish(parts);
  const whole = parts.map((part) => `${part.style(part.text)}\n`).join('');
  return { out: plain(out), after: after.map(plain), whole: plain(whole) };
}

const plain = (text: string) => stripVTControlCharacters(text);

const characters = (text: string) => [...text];

function labelsOf(language: string | undefined): LabelSet | undefined {
  if (language === undefined || language === 'en') return undefined;
  return mergeLabels(LABEL_SETS[language as LabelLanguage]);
}

/** Turns the loop rejects, where a later line changes what an earlier one read as (action then answer). */
const CONTRADICTED = new Set(['action-and-answer', 'placeholder-answer']);

test('every corpus turn, in any chunking, prints exactly what the whole turn prints', () => {
  const next = mulberry32(16);
  let checked = 0;
  for (const turn of corpus) {
    const labels = labelsOf(turn.language);
    const options = { tools: turn.tools ?? [], ...(labels && { labels }) };
    for (const chunks of [
      characters(turn.text),
      randomChunks(turn.text, next),
      randomChunks(turn.text, next),
    ]) {
      const { out, whole } = stream(chunks, options);
      if (CONTRADICTED.has(turn.kind)) {
        // What was printed stays, and the whole turn follows it on its own lines.
        assert.ok(out.endsWith(`\n${whole}`) || out === whole, `${turn.id}\n${out}`);
      } else {
        assert.equal(out, whole, `${turn.id} in chunks ${JSON.stringify(chunks)}`);
      }
      checked += 1;
    }
  }
  assert.ok(checked >= 3 * 130, `only ${checked} streamed turns`);
});

test('the thought and the action grow as the chunks arrive', () => {
  const text = 'Thought: I need the population of Paris.\nAction: search[population of Paris 2020]';
  const { after, out } = stream(characters(text));
  const at = (prefix: string) => after[prefix.length - 1];
  assert.equal(at('Thought: I need the pop'), 'Thought: I need the pop');
  assert.equal(
    at('Thought: I need the population of Paris.\nAction: sea'),
    'Thought: I need the population of Paris.',
  );
  assert.equal(
    at('Thought: I need the population of Paris.\nAction: search[population of'),
    'Thought: I need the population of Paris.\nAction: search[population of',
  );
  assert.equal(out, `${text}\n`);
});

test('an answer grows as it arrives', () => {
  const text = 'Thought: Done.\nAnswer: The Eiffel Tower is 330 metres tall.';
  const { after, out } = stream(characters(text));
  const prefix = 'Thought: Done.\nAnswer: The Eiffel Tower is 330 m';
  assert.equal(after[prefix.length - 1], prefix);
  assert.equal(out, `${text}\n`);
});

test('nothing after an invented observation is printed, nor the start of its label', () => {
  const text =
    'Thought: Look it up.\nAction: search[Paris]\nObservation: Paris is the capital (made up)\nThought: so\nAnswer: made up';
  const { after, out, whole } = stream(characters(text));
  for (const screen of after) assert.doesNotMatch(screen, /\nO|made up|Answer/, screen);
  assert.equal(out, whole);
  assert.equal(
    out,
    'Thought: Look it up.\nAction: search[Paris]\n(dropped an Observation the model wrote itself)\n',
  );
  // In an answer too: a line that starts as `Obs` is held back, a line that cannot be a label is not.
  const answer = stream(characters('Answer: 42\nand that is it\nObservation: 41'));
  for (const screen of answer.after) assert.doesNotMatch(screen, /\nO|41/, screen);
  assert.equal(answer.out, answer.whole);
});

test('only the shortest tail that may still become a label is held back', () => {
  const text = 'Thought: First line.\nThe second line is prose.\nAction: calculator[6 * 7]';
  const { after } = stream(characters(text));
  const at = (prefix: string) => after[prefix.length - 1];
  // `Th` may become `Thought:`; `The` cannot, so the line shows from then on.
  assert.equal(at('Thought: First line.\nTh'), 'Thought: First line.');
  assert.equal(at('Thought: First line.\nThe'), 'Thought: First line.\nThe');
  assert.equal(
    at('Thought: First line.\nThe second line is prose.\nAct'),
    'Thought: First line.\nThe second line is prose.',
  );
  // A partial `<think>` tag is not printed either.
  const tagged = stream(characters('<think>Hmm.</think>\nThought: ok\nAnswer: 1'));
  for (const screen of tagged.after) assert.doesNotMatch(screen, /</);
  assert.equal(tagged.out, tagged.whole);
});

test('a quoted action input is printed once it is complete (the parser may strip the quotes)', () => {
  const text = 'Thought: Quoted.\nAction: search["Brightgrid" vs "Acme"]';
  const { after, out, whole } = stream(characters(text));
  assert.equal(after[text.length - 3], 'Thought: Quoted.\nAction: search[');
  assert.equal(out, whole);
});

test('reasoning streams first, then the turn; a step inside an unclosed <think> is not printed as the turn', () => {
  const text =
    '<think>\nMaybe search.\nAction: search[wrong]\n</think>\nThought: Search the right thing.\nAction: search[right]';
  const { after, out, whole } = stream(characters(text), { reasoning: ['Provider ', 'reasoning.'] });
  assert.equal(after[1], 'Provider reasoning.');
  // The step written inside the block is reasoning (dimmed, no label), never the turn's thought.
  for (const screen of after) assert.doesNotMatch(screen, /Thought: Maybe/);
  assert.equal(out, whole);
  assert.match(
    out,
    /^Provider reasoning\.\n\nMaybe search\.\nAction: search\[wrong\]\nThought: Search the right thing\.\nAction: search\[right\]\n$/,
  );
});

test('native tool calling: only the reasoning streams, the text waits for the complete turn', () => {
  let out = '';
  const l = primaryLabels(ENGLISH_LABELS);
  const live = new LiveTurn({
    labels: ENGLISH_LABELS,
    printLabels: l,
    tools: [],
    showReasoning: true,
    native: true,
    write: (text) => {
      out += text;
    },
  });
  live.reasoning('Think first.');
  live.text('Paris');
  assert.equal(plain(out), 'Think first.');
  live.finish(turnParts({ type: 'answer', text: 'Paris' }, 'Paris', 'Think first.', l));
  assert.equal(plain(out), 'Think first.\nAnswer: Paris\n');
});

test('the spinner turns until the streamed turn shows on screen, not only until the first token', async () => {
  for (const native of [false, true]) {
    const out = new PassThrough();
    let printed = '';
    out.on('data', (d: Buffer) => {
      printed += d.toString();
    });
    const log: string[] = [];
    let turning = false;
    const spinner = {
      start: () => {
        turning = true;
      },
      stop: () => {
        turning = false;
      },
    };
    const render = createRenderer({
      json: false,
      out,
      live: true,
      native,
      beforeLiveOutput: () => spinner.stop(),
    });
    const text = native ? 'Paris' : 'Thought: check\nAnswer: Paris';
    async function* events(): AsyncGenerator<AgentEvent> {
      yield { type: 'run-start', question: 'q', modelId: 'm', tools: [], systemPrompt: 'p' };
      yield { type: 'model-start', step: 1 };
      const reply = new ShownReply(ENGLISH_LABELS);
      for (const chunk of native ? ['Par', 'is'] : ['Th', 'ought: ch', 'eck\nAnswer: Paris']) {
        yield { type: 'model-delta', step: 1, text: chunk, shown: native ? chunk : reply.push(chunk).shown };
        log.push(`${JSON.stringify(chunk)} turning=${turning} printed=${JSON.stringify(plain(printed))}`);
      }
      const usage = {};
      yield {
        type: 'model-end',
        step: 1,
        text,
        turn: { type: 'answer', text: 'Paris', ...(!native && { thought: 'check' }) },
        usage,
        finishReason: 'stop',
      };
      log.push(`end turning=${turning}`);
    }
    await consumeRun(events(), { openTrace: () => undefined, render, spinner, thinking: 'thinking' });
    await new Promise((resolve) => setImmediate(resolve));
    const expected = native
      ? ['"Par" turning=true printed=""', '"is" turning=true printed=""', 'end turning=false']
      : [
          '"Th" turning=true printed=""',
          '"ought: ch" turning=false printed="Thought: ch"',
          '"eck\\nAnswer: Paris" turning=false printed="Thought: check\\nAnswer: Paris"',
          'end turning=false',
        ];
    assert.deepEqual(log, expected, native ? 'native' : 'text');
  }
});
