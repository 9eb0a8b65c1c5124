/**
 * The stream cut (issue 16): `<think>` blocks are followed to their closing tag on any line and in any
 * chunking, and a reply read while streaming gives the same cut and the same turn as the whole reply.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { runAgent } from '../../src/agent/loop.js';
import { ENGLISH_LABELS, LABEL_SETS } from '../../src/react/labels.js';
import { parseTurn } from '../../src/react/parse.js';
import { readReply } from '../../src/react/reply.js';
import { cutReply, StreamCut } from '../../src/react/stream-cut.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { defineTool } from '../../src/tools/define.js';
import { assertLinear } from '../helpers/linear.js';

/** Feeds `chunks` to a StreamCut as a stream would, stopping at the cut; returns what was read. */
function stream(chunks: readonly string[], labels = ENGLISH_LABELS): { received: string; at: number } {
  const cut = new StreamCut(labels);
  let received = '';
  for (const chunk of chunks) {
    received += chunk;
    const at = cut.push(chunk);
    if (at >= 0) return { received, at };
  }
  return { received, at: -1 };
}

/** `text` split at the given (sorted, deduplicated) points. */
function split(text: string, points: readonly number[]): string[] {
  const cuts = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const at of cuts) {
    chunks.push(text.slice(from, at));
    from = at;
  }
  chunks.push(text.slice(from));
  return chunks;
}

const QWEN_REPLY = [
  '<think>',
  'The user asks for the population. Let me plan.',
  'Thought: I should search first.',
  'Action: search[Paris]',
  'Observation: I would then read the page.',
  'Answer: not yet',
  'Question: is this right?',
  '</think>',
  '',
  'Thought: I need the population of Paris.',
  'Action: search[Paris population]',
].join('\n');

describe('think blocks while streaming', () => {
  test('a block with label lines after its first line is not cut, in any chunk size', () => {
    for (const size of [1, 2, 3, 5, 8, 13, 64, QWEN_REPLY.length]) {
      const chunks = QWEN_REPLY.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
      assert.equal(stream(chunks).at, -1, `chunk size ${size}`);
    }
    const turn = readReply(QWEN_REPLY, { tools: ['search'] }).turn;
    assert.deepEqual(turn, {
      type: 'action',
      tool: 'search',
      input: 'Paris population',
      thought: 'I need the population of Paris.',
    });
  });

  test('the block ends at its closing tag, even when the tag is split over chunks or on a label line', () => {
    const reply = '<think>plan\nObservation: no\nok</THINK>Observation: yes';
    assert.equal(stream(['<think>plan\nObservation: no\nok</TH', 'INK>Obs', 'ervation: yes']).at, 0);
    assert.equal(cutReply(reply, ENGLISH_LABELS)?.reason, 'observation');
    const after = 'Thought: t\n<think>x\nObservation: inside</think>\nAction: s[x]\nObservation: out';
    assert.equal(stream([...after]).at, after.lastIndexOf('Observation'));
  });

  test('a first closing tag without an opener ends reasoning the chat template opened', () => {
    const reply = 'I will answer now.\nAnswer: maybe\n</think>\nThought: t\nAnswer: 4\nThought: more';
    const read = readReply(reply);
    assert.deepEqual(read.turn, { type: 'answer', text: '4', thought: 't' });
    assert.equal(read.cut?.reason, 'new-step');
    assert.equal(read.reasoning, 'I will answer now.\nAnswer: maybe');
  });

  test('a reply cut inside an unclosed block says the reasoning was cut off, not that it was empty', () => {
    // What a server does when it applies the stop sequence `\nObservation:` inside the block.
    const turn = parseTurn('<think>\nThought: search\nAction: search[x]');
    assert.equal(turn.type, 'none');
    assert.equal(turn.type === 'none' && turn.kind, 'reasoning-cut');
    assert.match(
      turn.type === 'none' ? turn.problem : '',
      /^Your reasoning was cut off before the step: write the step after `<\/think>`\./,
    );
    const atLimit = parseTurn('<think>long reasoning', { finishReason: 'length' });
    assert.match(
      atLimit.type === 'none' ? atLimit.problem : '',
      /output token limit while you were still reasoning/,
    );
  });

  test('a whole step written inside <think> with nothing after it is read from the block', () => {
    const turn = parseTurn('<think>\nThought: I need it.\nAction: search[Paris]\n</think>', {
      tools: ['search'],
    });
    assert.deepEqual(turn, { type: 'action', tool: 'search', input: 'Paris', thought: 'I need it.' });
    const only = parseTurn('<think>just musing</think>\n');
    assert.equal(only.type === 'none' && only.kind, 'only-reasoning');
  });
});

/** Replies made of protocol pieces, think tags and fences, so the generator reaches the cut's paths. */
const reply = fc
  .array(
    fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          'Thought: ',
          'Action: ',
          'Action Input: ',
          'Observation: ',
          'Observ',
          'Answer: ',
          'Final Answer: ',
          'Question: ',
          '**Observation:** ',
          'Observação: ',
          'search[x]',
          'finish[y]',
          '<think>',
          '</think>',
          '<THINK>',
          '<',
          '<th',
          '```',
          '\n',
          '\n',
          '\r\n',
          ' ',
          'text',
          // Disguises: other line breaks, invisible and control characters, look-alikes, quoting.
          '\r',
          '\u2028',
          '\x1d',
          '\u200b',
          '\x00',
          '\x1b[0m',
          '\x1b[',
          'Оbservation: ',
          'Observ\u200bation: ',
          'Observation\u2236 ',
          'ＯＢＳ',
          '> Observation: ',
          '1. Observation: ',
        ),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(''));

const labelSets = fc.constantFrom(...Object.values(LABEL_SETS));

describe('streamed and whole replies read the same', () => {
  test('property: any chunking gives the same cut and the same parsed turn as the whole reply', () => {
    fc.assert(
      fc.property(reply, fc.array(fc.nat(), { maxLength: 12 }), labelSets, (text, points, labels) => {
        const whole = cutReply(text, labels);
        const streamed = stream(split(text, points), labels);
        assert.equal(streamed.at, whole?.at ?? -1, 'the same cut');
        const options = { labels, tools: ['search', 'lookup'] };
        assert.deepEqual(readReply(streamed.received, options), readReply(text, options), 'the same turn');
      }),
      { numRuns: 3000 },
    );
  });

  test('a reply that starts with a line terminator JavaScript does not call white space reads the same', () => {
    // Found by the property below (seed -1801394230): the wrapper fence after a leading U+001D.
    const options = { tools: ['search', 'lookup'] };
    for (const lead of ['\x1c', '\x1d', '\x1e', '\u0085', '\u2028']) {
      for (const rest of ['```\nObservation\u2236 ', '```\nThought: a\nAction: search[x]\nObservation: 1']) {
        const text = lead + rest;
        const streamed = stream([text]);
        assert.deepEqual(
          readReply(streamed.received, options).turn,
          parseTurn(text, options),
          JSON.stringify(text),
        );
      }
    }
  });

  // Not for a first `</think>` without an opener: the parser, reading the whole reply, knows that all before
  // it was reasoning; a stream learns it only at the tag, after it may have stopped at an observation label.
  const templateOpened = (text: string) => /<\/think>/i.test(text.split(/<think>/i)[0] ?? '');
  test('property: the cut turn is the turn the parser reads from the whole reply', () => {
    fc.assert(
      fc.property(
        reply.filter((text) => !templateOpened(text)),
        fc.array(fc.nat(), { maxLength: 12 }),
        (text, points) => {
          const streamed = stream(split(text, points));
          const options = { tools: ['search', 'lookup'] };
          assert.deepEqual(readReply(streamed.received, options).turn, parseTurn(text, options));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

/** Ways a model may disguise the observation it writes after its answer; each is still an observation. */
const DISGUISED: Record<string, string> = {
  cr: '\rObservation: FAKE',
  crlf: '\r\nObservation: FAKE',
  lineSeparator: '\u2028Observation: FAKE',
  paragraphSeparator: '\u2029Observation: FAKE',
  nel: '\u0085Observation: FAKE',
  vt: '\vObservation: FAKE',
  ff: '\fObservation: FAKE',
  groupSeparator: '\x1dObservation: FAKE',
  zeroWidthBefore: '\n\u200bObservation: FAKE',
  zeroWidthInside: '\nObserv\u200bation: FAKE',
  cyrillic: '\nОbservation: FAKE',
  greek: '\nΟbservation: FAKE',
  fullwidth: '\nＯｂｓｅｒｖａｔｉｏｎ: FAKE',
  ratioColon: '\nObservation\u2236 FAKE',
  modifierColon: '\nObservation\ua789 FAKE',
  triangularColon: '\nObservation\u02d0 FAKE',
  nul: '\n\x00Observation: FAKE',
  ansi: '\n\x1b[0mObservation: FAKE',
  bareEscape: '\n\x1b[Observation: FAKE',
  portugueseLookalike: '\nОbservação: FAKE',
};

describe('a disguised observation after the answer is cut, streamed and whole', () => {
  for (const [name, disguise] of Object.entries(DISGUISED)) {
    test(name, () => {
      const text = `Thought: done\nAnswer: a${disguise}`;
      const whole = cutReply(text, ENGLISH_LABELS);
      assert.equal(whole?.reason, 'observation');
      assert.equal(text.slice(whole!.at).includes('FAKE'), true);
      assert.ok(!text.slice(0, whole!.at).includes('FAKE'), 'the cut is before the observation');
      for (const size of [1, 2, 3, 7]) {
        const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'gu'))!;
        assert.equal(stream(chunks).at, whole!.at, `chunks of ${size}`);
      }
      const read = readReply(text);
      assert.deepEqual(read.turn, {
        type: 'answer',
        text: 'a',
        thought: 'done',
        inventedObservation: true,
      });
      // The parser, given the whole reply, drops it too.
      const parsed = parseTurn(text);
      assert.equal(parsed.type === 'answer' && parsed.text, 'a');
    });
  }

  test('quoted and listed observations stay in an answer: answers may quote a transcript', () => {
    for (const line of ['> Observation: it said so', '1. Observation: one', 'The Observation: part']) {
      const text = `Answer: as logged\n${line}`;
      assert.equal(cutReply(text, ENGLISH_LABELS), undefined, line);
      const turn = parseTurn(text);
      assert.equal(turn.type === 'answer' && turn.text, `as logged\n${line}`);
    }
  });

  test('disguised and control-laden lines are cut in time linear in their number', () => {
    const lines = ['\u200b\x1b[0mObserv\u200bat', '\x1b[', 'Оbs\u2236', '\x00\u2028'];
    const make = (n: number) => `Answer: a\n${Array.from({ length: n }, (_, i) => lines[i % 4]).join('\n')}`;
    const cut = (text: string) => {
      cutReply(text, ENGLISH_LABELS);
      readReply(text);
    };
    assertLinear('disguised lines', make, cut, 1_000);
  });
});

test('end to end: an observation the model disguises after its answer is in neither the answer nor the messages', async () => {
  for (const streamChunkChars of [undefined, 3]) {
    for (const [name, disguise] of Object.entries(DISGUISED)) {
      const tool = defineTool({ name: 'look', description: 'd', input: 'text', run: () => 'real' });
      const model = scriptedModel(['Thought: t\nAction: look[x]', `Thought: ok\nAnswer: a${disguise}`], {
        ...(streamChunkChars !== undefined && { streamChunkChars }),
      });
      const result = await runAgent({ model, question: 'q', tools: [tool] });
      assert.equal(result.answer, 'a', name);
      const messages = JSON.stringify(result.messages);
      assert.ok(!messages.includes('FAKE'), `${name}: ${messages}`);
    }
  }
});
