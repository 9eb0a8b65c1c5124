import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createToolRouter } from '../../src/tools/router.js';
import { createWikipediaTools, wikipediaCorpus } from '../../src/tools/wikipedia.js';

const CORPUS = fileURLToPath(new URL('../fixtures/wiki-corpus.jsonl', import.meta.url));
const signal = new AbortController().signal;

let tempDir: string;
before(async () => {
  tempDir = await mkdtemp(path.join(tmpdir(), 'taoloop-wiki-corpus-'));
});
after(() => rm(tempDir, { recursive: true, force: true }));

async function corpusFile(name: string, lines: string[]): Promise<string> {
  const file = path.join(tempDir, name);
  await writeFile(file, `${lines.join('\n')}\n`, 'utf8');
  return file;
}

test('getPage matches titles up to case, underscores and spaces', async () => {
  const backend = wikipediaCorpus(CORPUS);
  for (const title of ['Ada Lovelace', 'ada lovelace', 'Ada_Lovelace', '  ADA   LOVELACE ']) {
    assert.equal((await backend.getPage(title, signal))?.title, 'Ada Lovelace', title);
  }
  assert.equal(await backend.getPage('Ada', signal), null);
});

test('similarTitles ranks pages by title and text match, at most 5', async () => {
  const backend = wikipediaCorpus(CORPUS);
  const engines = await backend.similarTitles('engine', signal);
  assert.ok(engines.length <= 5);
  assert.equal(engines[0], 'Engine');
  assert.ok(engines.includes('Analytical Engine'));
  assert.deepEqual((await backend.similarTitles('Lovelace mathematician', signal)).slice(0, 1), [
    'Ada Lovelace',
  ]);
  assert.deepEqual(await backend.similarTitles('zebra', signal), []);
});

test('search and lookup over the corpus give the paper observations', async () => {
  const [search, lookup] = createWikipediaTools({ backend: wikipediaCorpus(CORPUS) });
  assert.ok(search && lookup);
  assert.equal(
    await search.run('Ada Lovelace', { signal }),
    'Ada Lovelace was an English mathematician and writer. She was born in London in 1815. She is known for her work on the Analytical Engine of Charles Babbage. Her notes on the engine include what is often called the first computer program. She died in 1852.',
  );
  assert.equal(
    await lookup.run('engine', { signal }),
    '(Result 1 / 2) She is known for her work on the Analytical Engine of Charles Babbage.',
  );
  assert.equal(
    await lookup.run('engine', { signal }),
    '(Result 2 / 2) Her notes on the engine include what is often called the first computer program.',
  );
  assert.equal(await lookup.run('engine', { signal }), 'No more results.');
  assert.equal(await lookup.run('Byron', { signal }), '(Result 1 / 1) Her father was the poet Lord Byron.');
});

test('a missing title lists similar corpus titles', async () => {
  const [search] = createWikipediaTools({ backend: wikipediaCorpus(CORPUS) });
  const observation = String(await search?.run('Babbage engine', { signal }));
  assert.match(observation, /^Could not find Babbage engine\. Similar: \['/);
  assert.match(observation, /'Charles Babbage'/);
  assert.match(observation, /'Difference Engine'/);
  assert.match(observation, /\]\.$/);
});

test('the corpus tools run through the router', async () => {
  const router = createToolRouter(createWikipediaTools({ backend: wikipediaCorpus(CORPUS) }));
  assert.equal(
    (await router.call('search', 'london')).observation,
    'London is the capital and largest city of England. It stands on the River Thames.',
  );
  const outcome = await router.call('lookup', 'thames');
  assert.deepEqual(
    [outcome.ok, outcome.observation],
    [true, '(Result 1 / 1) It stands on the River Thames.'],
  );
});

test('the file is read lazily, once', async () => {
  const file = path.join(tempDir, 'lazy.jsonl');
  const backend = wikipediaCorpus(file); // does not exist yet: creating the backend reads nothing
  await writeFile(file, `${JSON.stringify({ title: 'First', text: 'Version one.' })}\n`, 'utf8');
  assert.equal((await backend.getPage('First', signal))?.text, 'Version one.');
  await writeFile(file, `${JSON.stringify({ title: 'First', text: 'Version two.' })}\n`, 'utf8');
  assert.equal((await backend.getPage('First', signal))?.text, 'Version one.');
});

test('the first of two pages with the same title wins; blank lines and extra fields are fine', async () => {
  const file = await corpusFile('dupes.jsonl', [
    JSON.stringify({ title: 'Same', text: 'First one.', id: 7 }),
    '',
    JSON.stringify({ title: 'same', text: 'Second one.' }),
  ]);
  const backend = wikipediaCorpus(file);
  assert.equal((await backend.getPage('SAME', signal))?.text, 'First one.');
  assert.deepEqual(await backend.similarTitles('same', signal), ['Same']);
});

test('an unreadable file or a bad line is an error naming the file and line', async () => {
  const missing = wikipediaCorpus(path.join(tempDir, 'missing.jsonl'));
  await assert.rejects(
    async () => missing.getPage('x', signal),
    /Cannot read the Wikipedia corpus .*missing\.jsonl \(ENOENT\)/,
  );
  const notJson = await corpusFile('bad.jsonl', [JSON.stringify({ title: 'A', text: 'a' }), '{oops']);
  await assert.rejects(
    async () => wikipediaCorpus(notJson).getPage('A', signal),
    /bad\.jsonl:2: not valid JSON/,
  );
  const noTitle = await corpusFile('no-title.jsonl', [JSON.stringify({ text: 'a' })]);
  await assert.rejects(
    async () => wikipediaCorpus(noTitle).similarTitles('a', signal),
    /no-title\.jsonl:1: each line must be \{"title": "\.\.\.", "text": "\.\.\."\}/,
  );
  const [search] = createWikipediaTools({ backend: missing });
  const router = createToolRouter(search ? [search] : []);
  assert.match((await router.call('search', 'x')).observation, /^Error: Cannot read the Wikipedia corpus/);
});
