import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createSearchIndex,
  createSearchTool,
  type DocumentIndex,
  readDocuments,
} from '../../src/tools/search.js';
import { cacheFilePath, defaultCacheDir, indexCacheKey } from '../../src/tools/search-cache.js';
import { INDEX_FORMAT } from '../../src/tools/search-index.js';

const signal = new AbortController().signal;
const QUERIES = ['amber falcon', 'river 17 lantern', 'copper harbor', 'topic 1234', 'nothing-matches-this'];
const WORDS = ['amber', 'falcon', 'river', 'lantern', 'copper', 'harbor', 'meadow', 'quartz', 'violet'];

/** Writes `files` files of `perFile` paragraphs each: 2,100 passages by default, a "large" folder. */
async function writeFolder(dir: string, files = 21, perFile = 100): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (let f = 0; f < files; f++) {
    const paragraphs = Array.from({ length: perFile }, (_, p) => {
      const n = f * perFile + p;
      const words = [0, 1, 2].map((i) => WORDS[(n * (i + 3) + i) % WORDS.length]);
      return `Topic ${n}: the ${words.join(' ')} note number ${n % 50}.`;
    });
    await writeFile(path.join(dir, `part-${String(f).padStart(2, '0')}.md`), paragraphs.join('\n\n'));
  }
}

const hitsOf = (index: DocumentIndex) => QUERIES.map((query) => index.search(query, 3));
const keyOf = async (docsDir: string) => indexCacheKey(await readDocuments(docsDir));

async function cacheEntries(cacheDir: string): Promise<string[]> {
  return readdir(cacheDir).catch(() => []);
}

describe('search index cache', () => {
  let root: string;
  let docs: string;
  let cacheDir: string;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'taoloop-search-cache-'));
    docs = path.join(root, 'docs');
    cacheDir = path.join(root, 'cache');
    await writeFolder(docs);
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('saves a large folder index once, then loads it with identical results', async () => {
    const first = await createSearchIndex({ docsDir: docs, cacheDir });
    assert.equal(first.source, 'built');
    assert.ok(first.index.size >= 2000, `${first.index.size} passages`);
    assert.deepEqual(await cacheEntries(cacheDir), [`${await keyOf(docs)}.idx`]);

    const second = await createSearchIndex({ docsDir: docs, cacheDir });
    assert.equal(second.source, 'cache');
    assert.equal(second.index.size, first.index.size);
    assert.deepEqual(hitsOf(second.index), hitsOf(first.index));
    assert.ok((hitsOf(second.index)[0]?.length ?? 0) > 0);
  });

  it('gives the same tool observations from the cache as from a fresh build', async () => {
    const cached = await createSearchTool({ docsDir: docs, cacheDir });
    const built = await createSearchTool({ docsDir: docs, cacheDir: false });
    for (const query of QUERIES) {
      assert.equal(await cached.run(query, { signal }), await built.run(query, { signal }), query);
    }
  });

  it('rebuilds when one file changes, and finds the new text', async () => {
    const changedDocs = path.join(root, 'changed');
    await writeFolder(changedDocs);
    assert.equal((await createSearchIndex({ docsDir: changedDocs, cacheDir })).source, 'cache');
    await writeFile(path.join(changedDocs, 'part-05.md'), 'Zeppelins carry mail.\n\nTopic 9999: amber.');
    const changed = await createSearchIndex({ docsDir: changedDocs, cacheDir });
    assert.equal(changed.source, 'built');
    assert.equal(changed.index.search('zeppelin', 1)[0]?.id, 'part-05.md');
    assert.equal((await cacheEntries(cacheDir)).length, 2);
    assert.equal((await createSearchIndex({ docsDir: changedDocs, cacheDir })).source, 'cache');
  });

  it('ignores a corrupt or truncated entry, rebuilds it and saves it again', async () => {
    const fresh = await createSearchIndex({ docsDir: docs, cacheDir: false });
    const file = cacheFilePath(cacheDir, await keyOf(docs));
    const whole = await readFile(file, 'utf8');
    for (const corrupt of [
      'not json at all',
      whole.slice(0, whole.length / 2),
      whole.replace(`"format":${INDEX_FORMAT}`, '"format":999'),
    ]) {
      await writeFile(file, corrupt);
      const rebuilt = await createSearchIndex({ docsDir: docs, cacheDir });
      assert.equal(rebuilt.source, 'built');
      assert.deepEqual(hitsOf(rebuilt.index), hitsOf(fresh.index));
      assert.equal((await createSearchIndex({ docsDir: docs, cacheDir })).source, 'cache');
    }
    await truncate(file, 0);
    assert.equal((await createSearchIndex({ docsDir: docs, cacheDir })).source, 'built');
  });

  it('never saves a small folder, unless cacheMinPassages is lowered', async () => {
    const small = path.join(root, 'small');
    await writeFolder(small, 2, 10);
    const smallCache = path.join(root, 'small-cache');
    for (let run = 0; run < 2; run++) {
      assert.equal((await createSearchIndex({ docsDir: small, cacheDir: smallCache })).source, 'built');
    }
    assert.deepEqual(await cacheEntries(smallCache), []);
    const lowered = { docsDir: small, cacheDir: smallCache, cacheMinPassages: 20 };
    assert.equal((await createSearchIndex(lowered)).source, 'built');
    assert.equal((await createSearchIndex(lowered)).source, 'cache');
    await assert.rejects(createSearchIndex({ ...lowered, cacheMinPassages: -1 }), RangeError);
  });

  it('reads and writes nothing with cacheDir: false', async () => {
    const unused = path.join(root, 'unused');
    assert.equal((await createSearchIndex({ docsDir: docs, cacheDir: false })).source, 'built');
    assert.equal((await createSearchIndex({ docsDir: docs, cacheDir: false })).source, 'built');
    assert.deepEqual(await cacheEntries(unused), []);
  });

  it('builds anyway when the cache folder cannot be written or the entry read', async () => {
    const blocker = path.join(root, 'a-file');
    await writeFile(blocker, 'not a folder');
    const unwritable = path.join(blocker, 'cache');
    for (let run = 0; run < 2; run++) {
      assert.equal((await createSearchIndex({ docsDir: docs, cacheDir: unwritable })).source, 'built');
    }
    const odd = path.join(root, 'odd-cache');
    const key = await keyOf(docs);
    await mkdir(cacheFilePath(odd, key), { recursive: true }); // the entry's name is taken by a folder
    assert.equal((await createSearchIndex({ docsDir: docs, cacheDir: odd })).source, 'built');
    assert.deepEqual(await cacheEntries(odd), [`${key}.idx`]); // no temporary file left behind
  });
});

describe('indexCacheKey', () => {
  const a = { id: 'a.md', text: 'Alpha.' };
  const b = { id: 'b.md', text: 'Beta.' };

  it('depends on ids and texts, not on their order', () => {
    assert.equal(indexCacheKey([a, b]), indexCacheKey([b, a]));
    assert.match(indexCacheKey([a, b]), /^[0-9a-f]{64}$/);
    assert.notEqual(indexCacheKey([a, b]), indexCacheKey([a, { ...b, text: 'Beta!' }]));
    assert.notEqual(indexCacheKey([a, b]), indexCacheKey([a, { ...b, id: 'c.md' }]));
    assert.notEqual(indexCacheKey([a, b]), indexCacheKey([a]));
  });
});

describe('defaultCacheDir', () => {
  it('prefers TAOLOOP_CACHE_DIR, then an absolute XDG_CACHE_HOME, then ~/.cache', () => {
    const home = path.resolve('/home/someone');
    const xdg = path.resolve('/var/cache/someone');
    const own = path.resolve('/opt/taoloop-cache');
    assert.equal(
      defaultCacheDir({ TAOLOOP_CACHE_DIR: own, XDG_CACHE_HOME: xdg }, home),
      path.join(own, 'search'),
    );
    assert.equal(defaultCacheDir({ XDG_CACHE_HOME: xdg }, home), path.join(xdg, 'taoloop', 'search'));
    assert.equal(
      defaultCacheDir({ XDG_CACHE_HOME: 'relative/cache', TAOLOOP_CACHE_DIR: '' }, home),
      path.join(home, '.cache', 'taoloop', 'search'),
    );
    assert.equal(defaultCacheDir({}, home), path.join(home, '.cache', 'taoloop', 'search'));
  });
});
