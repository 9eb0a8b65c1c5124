/**
 * The playground's Markdown renderer (`src/web/client/markdown.js`) on a minimal stand-in DOM: spans become
 * elements, markup stays text, and a text too long for the span rules (whose time grows with the square
 * of a run of spans) is shown as plain text instead of being parsed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMarkdown } from '../../src/web/client/markdown.js';

interface FakeNode {
  tag?: string;
  className?: string;
  textContent?: string;
  children: FakeNode[];
  append(...nodes: FakeNode[]): void;
  setAttribute(name: string, value: string): void;
  [key: string]: unknown;
}

function fakeElement(tag: string, className?: string, text?: string): FakeNode {
  return {
    tag,
    ...(className !== undefined && { className }),
    ...(text !== undefined && { textContent: text }),
    children: [],
    append(...nodes) {
      this.children.push(...nodes);
    },
    setAttribute() {},
  };
}

(globalThis as { document?: unknown }).document = {
  createTextNode: (text: string) => ({ textContent: text, children: [] }),
};
const { render } = createMarkdown({ el: fakeElement } as never) as { render(text: string): FakeNode };

const tags = (node: FakeNode): string[] => [
  ...(node.tag ? [node.tag] : []),
  ...(node.children ?? []).flatMap(tags),
];

test('spans become elements; HTML in an answer stays text', () => {
  const root = render('**$1,680** per year, see <img src=x onerror=alert(1)> and [x](javascript:alert(1))');
  assert.ok(tags(root).includes('strong'));
  assert.ok(!tags(root).includes('img'));
  assert.ok(!tags(root).includes('a'), 'no link to a javascript: address');
});

test('a text too long for the span rules is shown as plain text, whole', () => {
  const long = '`c` '.repeat(10_000);
  const root = render(long);
  assert.equal(root.className, 'markdown markdown-plain');
  assert.equal(root.textContent, long);
  const longLine = `# a${' '.repeat(5_000)}x`;
  assert.equal(render(longLine).className, 'markdown markdown-plain');
  assert.equal(render('# a heading').className, 'markdown');
});
