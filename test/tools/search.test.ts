import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  createSearchTool,
  DocsFolderError,
  DocumentIndex,
  NO_MATCH,
  readDocuments,
} from '../../src/tools/search.js';
import { splitPassages } from '../../src/tools/search-text.js';
import type { Tool } from '../../src/tools/types.js';
import { tempDir } from '../helpers/temp.js';

const BRIGHTGRID = fileURLToPath(new URL('../../examples/brightgrid', import.meta.url));
const PRO_PRICE = 'Brightgrid Pro costs $20 per month per developer.';
const signal = new AbortController().signal;

describe('search tool over examples/brightgrid', () => {
  let search: Tool;
  before(async () => {
    search = await createSearchTool({ docsDir: BRIGHTGRID });
  });

  it('describes itself with the folder name', () => {
    assert.equal(search.name, 'search');
    assert.equal(
      search.description,
      'Searches the documents in brightgrid and returns the best matching passages. Input: a few keywords.',
    );
    assert.equal(search.effects, 'read');
  });

  it('finds the Pro price first, and alone', async () => {
    for (const query of ['Pro price per developer', 'Brightgrid Pro price per developer']) {
      const result = String(await search.run(query, { signal }));
      assert.ok(result.split(' | ')[0]?.includes(PRO_PRICE), result);
      assert.ok(!result.includes(' | '), `expected one passage, got: ${result}`);
    }
  });

  it('answers exactly "No matching document." when no meaningful term matches', async () => {
    assert.equal(await search.run('mobile app support', { signal }), NO_MATCH);
    assert.equal(NO_MATCH, 'No matching document.');
    assert.equal(await search.run('what is the', { signal }), NO_MATCH);
  });

  it('finds refunds and export limits, matching plurals', async () => {
    assert.match(
      String(await search.run('How long does a refund take?', { signal })),
      /Refunds take 5 working days/,
    );
    assert.match(
      String(await search.run('free plan export rows', { signal })),
      /free plan exports up to 5,000 rows/,
    );
  });

  it('refuses an empty query', async () => {
    await assert.rejects(async () => search.run('  ', { signal }), /Empty query/);
  });
});

describe('readDocuments and createSearchTool on other folders', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'taoloop-search-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads md, txt, json and jsonl recursively, skipping dotfiles and node_modules', async () => {
    const docs = path.join(dir, 'docs');
    await mkdir(path.join(docs, 'nested'), { recursive: true });
    await mkdir(path.join(docs, 'node_modules'), { recursive: true });
    await mkdir(path.join(docs, '.git'), { recursive: true });
    await writeFile(path.join(docs, 'a.txt'), 'Walruses live in the Arctic.');
    await writeFile(
      path.join(docs, 'nested', 'b.jsonl'),
      '{"title":"Kiwi","text":"Kiwis cannot fly."}\nplain line about penguins\n',
    );
    await writeFile(
      path.join(docs, 'c.json'),
      JSON.stringify([{ name: 'Ostrich', speed: 70 }, { content: 'Llamas run fast.' }]),
    );
    await writeFile(path.join(docs, 'd.csv'), 'flamingo');
    await writeFile(path.join(docs, '.hidden.md'), 'flamingo');
    await writeFile(path.join(docs, 'node_modules', 'e.md'), 'flamingo');
    await writeFile(path.join(docs, '.git', 'f.md'), 'flamingo');

    const read = await readDocuments(docs);
    assert.deepEqual(
      read.map((doc) => doc.id),
      ['a.txt', 'c.json', 'nested/b.jsonl'],
    );
    const tool = await createSearchTool({ docsDir: docs, topK: 1 });
    assert.equal(await tool.run('kiwi', { signal }), 'Kiwi: Kiwis cannot fly.');
    assert.equal(await tool.run('penguins', { signal }), 'plain line about penguins');
    assert.equal(await tool.run('ostrich speed', { signal }), 'name: Ostrich; speed: 70');
    assert.equal(await tool.run('llama', { signal }), 'Llamas run fast.');
    assert.equal(await tool.run('flamingo', { signal }), NO_MATCH);
  });

  it('throws DocsFolderError naming the path for a missing folder, a file, or an empty folder', async () => {
    const missing = path.join(dir, 'missing');
    await assert.rejects(createSearchTool({ docsDir: missing }), (error: unknown) => {
      assert.ok(error instanceof DocsFolderError);
      assert.ok(error.message.includes(missing), error.message);
      assert.match(error.message, /does not exist/);
      assert.match(error.message, /--docs must be a folder with \.md\/\.txt\/\.json\/\.jsonl files/);
      return true;
    });
    const file = path.join(dir, 'file.md');
    await writeFile(file, 'text');
    await assert.rejects(createSearchTool({ docsDir: file }), /is not a folder/);
    const empty = path.join(dir, 'empty');
    await mkdir(path.join(empty, 'sub'), { recursive: true });
    await writeFile(path.join(empty, 'blank.md'), '  \n');
    await assert.rejects(createSearchTool({ docsDir: empty }), /No documents with text found/);
  });

  it('refuses a topK that is not a positive integer', async () => {
    await assert.rejects(createSearchTool({ docsDir: BRIGHTGRID, topK: 0 }), RangeError);
  });
});

describe('DocumentIndex', () => {
  const index = DocumentIndex.fromDocuments([
    { id: 'cats', text: '# Cats\n\nCats sleep a lot.\n\nCats chase mice at night.' },
    { id: 'dogs', text: 'Dogs bark at the mailman. Exporters ship dogs food.' },
  ]);

  it('returns passages with their document id, position and score, best first', () => {
    const hits = index.search('cats mice', 5);
    assert.equal(hits[0]?.id, 'cats');
    assert.equal(hits[0]?.passage, 1);
    assert.equal(hits[0]?.text, 'Cats: Cats chase mice at night.');
    assert.ok((hits[0]?.score ?? 0) > 0);
    assert.equal(index.size, 3);
  });

  it('drops passages far below the best unless asked to keep them', () => {
    assert.equal(index.search('cats mice', 5).length, 1);
    assert.equal(index.search('cats mice', 5, { minRelativeScore: 0 }).length, 2);
  });

  it('matches whole terms only: no prefix or fuzzy matches', () => {
    assert.deepEqual(index.search('export', 5), []);
    assert.deepEqual(index.search('cat', 5).length, 2);
    assert.deepEqual(index.search('dgs', 5), []);
  });

  it('limits results to topK', () => {
    assert.equal(index.search('cats', 1, { minRelativeScore: 0 }).length, 1);
    assert.throws(() => index.search('cats', 0), RangeError);
  });

  it('serializes to single-line JSON texts and loads back with identical results', () => {
    const saved = index.serialize();
    assert.ok(!saved.passagesJson.includes('\n') && !saved.engineJson.includes('\n'));
    const loaded = DocumentIndex.deserialize(saved);
    assert.equal(loaded.size, index.size);
    for (const query of ['cats mice', 'dogs', 'mailman food', 'export']) {
      assert.deepEqual(
        loaded.search(query, 5, { minRelativeScore: 0 }),
        index.search(query, 5, { minRelativeScore: 0 }),
      );
    }
  });

  it('refuses a malformed saved index', () => {
    const saved = index.serialize();
    assert.throws(() => DocumentIndex.deserialize({ ...saved, passagesJson: '{}' }), /not an array/);
    assert.throws(
      () => DocumentIndex.deserialize({ ...saved, passagesJson: '[["a", "x", 1]]' }),
      /malformed/,
    );
    assert.throws(() => DocumentIndex.deserialize({ ...saved, passagesJson: '[]' }), /expected 0/);
    assert.throws(() => DocumentIndex.deserialize({ ...saved, engineJson: saved.engineJson.slice(9) }));
  });
});

describe('splitPassages', () => {
  it('splits long paragraphs on sentence boundaries near 500 characters', () => {
    const sentence = 'This sentence is about forty characters. ';
    const passages = splitPassages(sentence.repeat(30).trim());
    assert.ok(passages.length >= 2);
    for (const passage of passages) {
      assert.ok(passage.length <= 500, `${passage.length}`);
      assert.ok(passage.endsWith('.'));
    }
    assert.equal(passages.join(' '), sentence.repeat(30).trim());
  });

  it('splits a single huge sentence between words', () => {
    const passages = splitPassages('word '.repeat(300));
    assert.ok(passages.length >= 3);
    assert.ok(passages.every((passage) => passage.length <= 500));
  });
});

describe('binary documents', () => {
  it('binary files with a text extension are not indexed', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const dir = tempDir('taoloop-binary-');
    await writeFile(join(dir, 'notes.md'), 'GLIBC is a C library.');
    await writeFile(
      join(dir, 'ls.txt'),
      Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x47, 0x4c, 0x49, 0x42, 0x43]),
    );
    const docs = await readDocuments(dir);
    assert.deepEqual(
      docs.map((d) => d.id),
      ['notes.md'],
    );
  });
});
