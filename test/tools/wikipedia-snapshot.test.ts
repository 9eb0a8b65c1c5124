import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createToolRouter } from '../../src/tools/router.js';
import { createWikipediaTools, type WikipediaBackend } from '../../src/tools/wikipedia-tools.js';

const backend: WikipediaBackend = {
  getPage: async (title) =>
    title === 'Paramore'
      ? {
          title: 'Paramore',
          text: 'Paramore is a band. It formed in 2004. Its second album came out in 2007. Its third album came out in 2009.',
        }
      : null,
  similarTitles: async () => [],
};

test('the Wikipedia tools save their page and lookup position, and fresh tools restored from it go on', async () => {
  const [search, lookup] = createWikipediaTools({ backend });
  const router = createToolRouter([search!, lookup!]);
  await router.call('search', 'Paramore');
  assert.match((await router.call('lookup', 'album')).observation, /^\(Result 1 \/ 2\) Its second album/);
  const saved = JSON.parse(JSON.stringify(lookup!.snapshot!.save()));

  // A resumed run: new tools, the recorded state put back, then the next lookup.
  const [search2, lookup2] = createWikipediaTools({ backend });
  const fresh = createToolRouter([search2!, lookup2!]);
  assert.match((await fresh.call('lookup', 'album')).observation, /no current page/);
  search2!.snapshot!.restore(saved);
  assert.match((await fresh.call('lookup', 'album')).observation, /^\(Result 2 \/ 2\) Its third album/);

  // A value that is not a saved state changes nothing.
  const [, lookup3] = createWikipediaTools({ backend });
  lookup3!.snapshot!.restore({ page: { title: 1 }, keyword: null, cursor: 0 });
  lookup3!.snapshot!.restore('junk');
  assert.deepEqual(lookup3!.snapshot!.save(), { page: null, keyword: null, cursor: 0 });
});
