/**
 * What of a streamed reply may be shown (`ShownReply`, the `shown` of `model-delta`): never the start of
 * an observation the model writes itself, however the line is padded or split, and nothing shown is ever
 * taken back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENGLISH_LABELS } from '../../src/react/labels.js';
import { ShownReply } from '../../src/react/settled.js';

/** Everything shown of `text` pushed in chunks of `size`, and whether reading stopped. */
function shownOf(text: string, size: number): { shown: string; cut: boolean } {
  const reply = new ShownReply(ENGLISH_LABELS);
  let shown = '';
  for (let at = 0; at < text.length; at += size) {
    const next = reply.push(text.slice(at, at + size));
    shown += next.shown;
    if (next.cut) return { shown, cut: true };
  }
  return { shown, cut: false };
}

const PADDING: Record<string, string> = {
  spaces: ' '.repeat(120),
  'no-break spaces': '\u00a0'.repeat(120),
  'zero-width spaces': '\u200b'.repeat(150),
  'soft hyphens': '\u00ad'.repeat(150),
  'variation selectors': '\ufe0f'.repeat(150),
  'tag characters': '\u{e0020}'.repeat(80),
  'an escape sequence': `\x1b[${'0'.repeat(150)}m`,
};

test('a padded invented observation never reaches what is shown, in any chunking', () => {
  for (const [name, pad] of Object.entries(PADDING)) {
    for (const ending of ['', '\n']) {
      const text = `Thought: look\nAction: look[x]\n${pad}Observation: the secret is 42${ending}`;
      for (const size of [1, 2, 3, 7, 64, text.length]) {
        const { shown } = shownOf(text, size);
        assert.doesNotMatch(shown, /secret/, `${name}, chunks of ${size}`);
        assert.ok(text.startsWith(shown), 'shown is the reply, in order');
        assert.match(shown, /Action: look\[x\]/, 'what came before is shown');
      }
    }
  }
});

test('a label split inside a surrogate pair is held, not shown half-read', () => {
  const bold = [...'𝐎𝐛𝐬𝐞𝐫𝐯𝐚𝐭𝐢𝐨𝐧'].join('');
  const text = `Thought: t\nAction: look[x]\n${bold}: leaked`;
  for (const size of [1, 3, 5]) {
    const { shown } = shownOf(text, size);
    assert.equal(shown, 'Thought: t\nAction: look[x]\n', `chunks of ${size}`);
  }
});

test('an ordinary line streams as it arrives; the start of a label or a tag waits', () => {
  const reply = new ShownReply(ENGLISH_LABELS);
  assert.equal(reply.push('Thought: I will').shown, 'Thought: I will');
  assert.equal(reply.push(' look\nObs').shown, ' look\n');
  assert.equal(reply.push('cure words <thi').shown, 'Obscure words ');
  assert.equal(reply.push('ngs>').shown, '<things>');
});
