/**
 * The portable core's own versions of what used to need Node: search over documents passed as strings,
 * Wikipedia pages held in memory, and clear errors that point at `taoloop/node` for the Node-only forms.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  createSearchTool,
  createWikipediaTools,
  ModelConfigError,
  resolveModelSpec,
  wikipediaApi,
} from '../../src/index.js';
import { importProvider } from '../../src/models/providers.js';
import { wikipediaPages } from '../../src/protocol/index.js';

const signal = new AbortController().signal;

describe('createSearchTool over documents passed as strings', () => {
  test('finds the passage, from a record or from { id, text } items', async () => {
    const text = '# Pricing\n\nBrightgrid Pro costs $20 per month per developer.\n\n# Support\n\nEmail only.';
    for (const documents of [{ 'pricing.md': text }, [{ id: 'pricing.md', text }]]) {
      const search = await createSearchTool({ documents, collectionName: 'brightgrid' });
      assert.match(search.description, /documents in brightgrid/);
      assert.match(String(await search.run('Pro price per developer', { signal })), /\$20 per month/);
      assert.equal(await search.run('kangaroo', { signal }), 'No matching document.');
    }
  });

  test('refuses a folder, naming taoloop/node, and a text that is not a string', async () => {
    const folder = { docsDir: 'docs' } as unknown as Parameters<typeof createSearchTool>[0];
    await assert.rejects(createSearchTool(folder), /taoloop\/node/);
    const bad = { documents: { 'a.md': 42 } } as unknown as Parameters<typeof createSearchTool>[0];
    await assert.rejects(createSearchTool(bad), /string id and a string text/);
  });
});

describe('wikipediaPages', () => {
  test('serves search and lookup from pages in memory, JSONL or an array', async () => {
    const page = { title: 'Paramore', text: 'Paramore is an American rock band.\nThey formed in 2004.' };
    for (const pages of [`${JSON.stringify(page)}\n`, [page]]) {
      const [search, lookup] = createWikipediaTools({ backend: wikipediaPages(pages) });
      assert.match(String(await search?.run('paramore', { signal })), /American rock band/);
      assert.match(String(await lookup?.run('2004', { signal })), /formed in 2004/);
    }
  });

  test('names the bad line', () => {
    assert.throws(() => wikipediaPages('{"title": "A", "text": "x"}\nnot json\n'), /pages:2: not valid JSON/);
  });

  test('the portable wikipediaApi refuses cacheDir, naming taoloop/node', () => {
    const options = { cacheDir: '.cache' } as unknown as Parameters<typeof wikipediaApi>[0];
    assert.throws(() => wikipediaApi(options), /taoloop\/node/);
  });
});

describe('resolveModelSpec in the portable core', () => {
  test('local: and replay: need Node and say where to import from', async () => {
    for (const spec of ['local:./model.gguf', 'replay:run.jsonl']) {
      await assert.rejects(resolveModelSpec(spec, {}), (error: unknown) => {
        assert.ok(error instanceof ModelConfigError);
        assert.match(error.message, /need Node: import \{ resolveModelSpec \} from 'taoloop\/node'/);
        return true;
      });
    }
  });

  test('a provider package that is not installed gets the one command that installs it', async () => {
    const missing = Object.assign(new Error("Cannot find package '@ai-sdk/anthropic'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await assert.rejects(
      importProvider('anthropic', () => Promise.reject(missing)),
      /"anthropic:" models need the @ai-sdk\/anthropic package, which is not installed: run `npm install @ai-sdk\/anthropic@3.0.140`/,
    );
    const other = new Error('boom');
    await assert.rejects(
      importProvider('openai', () => Promise.reject(other)),
      /boom/,
    );
  });
});
