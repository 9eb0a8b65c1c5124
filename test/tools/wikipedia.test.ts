import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createToolRouter } from '../../src/tools/router.js';
import type { Tool } from '../../src/tools/types.js';
import {
  createWikipediaTools,
  pageSentences,
  type WikipediaApiNodeOptions as WikipediaApiOptions,
  wikipediaApi,
} from '../../src/tools/wikipedia.js';
import { DEFAULT_USER_AGENT } from '../../src/tools/wikipedia-api.js';
import { parseRetryAfter } from '../../src/tools/wikipedia-http.js';
import { notFoundObservation } from '../../src/tools/wikipedia-text.js';
import {
  type FakeFailure,
  type FakeWikipedia,
  type FakeWikipediaOptions,
  startFakeWikipedia,
} from '../helpers/fake-wikipedia-server.js';

const PARAMORE = [
  'Paramore is an American rock band from Franklin, Tennessee, formed in 2004. The band consists of Hayley Williams, Taylor York and Zac Farro. Williams and Farro are founding members. York joined in 2007. The band is signed to Fueled by Ramen. Their debut album came out in 2005.',
  '',
  '',
  '== History ==',
  '',
  '',
  '=== Formation ===',
  'Hayley Williams moved to Franklin in 2002. She met Josh and Zac Farro at school. The band formed in Franklin in 2004.',
  'Their second album, Riot!, was released in 2007.',
].join('\n');

const PAGES: FakeWikipediaOptions = {
  pages: {
    Paramore: { extract: PARAMORE },
    Tennessee: {
      extract:
        'Tennessee is a state in the Southeastern United States. Its capital is Nashville. Franklin is a city south of Nashville.',
    },
    'Hayley Williams': {
      extract: 'Hayley Williams is an American singer. She is the lead vocalist of Paramore.',
    },
    Franklin: {
      extract: 'Franklin may refer to:\nFranklin, Tennessee\nBenjamin Franklin',
      disambiguation: true,
    },
  },
  redirects: { 'Paramore (band)': 'Paramore' },
  search: {
    'Paramour Band': ['Paramore', 'Paramour (film)', "Paramore's Riot!", 'Band', 'Paramount', 'Sixth'],
    Franklin: ['Franklin, Tennessee', 'Benjamin Franklin', 'Franklin (TV series)'],
  },
};

const signal = new AbortController().signal;
let server: FakeWikipedia;

before(async () => {
  server = await startFakeWikipedia(PAGES);
});
after(() => server.close());

function tools(options: WikipediaApiOptions = {}): { search: Tool; lookup: Tool } {
  const [search, lookup] = createWikipediaTools({
    backend: wikipediaApi({ baseUrl: server.apiUrl, retryDelayMs: 10, ...options }),
  });
  assert.ok(search && lookup);
  return { search, lookup };
}

/** A server for one test, with scripted failures in front of the normal pages. */
async function withServer(
  failures: FakeFailure[],
  body: (fake: FakeWikipedia) => Promise<void>,
): Promise<void> {
  const fake = await startFakeWikipedia({ ...PAGES, failures });
  try {
    await body(fake);
  } finally {
    await fake.close();
  }
}

test('the tools have the paper names, descriptions, hints and limits', () => {
  const { search, lookup } = tools();
  assert.equal(search.name, 'search');
  assert.equal(lookup.name, 'lookup');
  assert.match(search.description, /^search\[entity\], which searches the exact entity on Wikipedia/);
  assert.match(lookup.description, /^lookup\[keyword\], which returns the next sentence containing keyword/);
  assert.deepEqual([search.inputHint, lookup.inputHint], ['entity', 'keyword']);
  assert.deepEqual([search.effects, lookup.effects], ['read', 'read']);
  assert.deepEqual([search.maxInputChars, lookup.maxInputChars], [200, 200]);
});

test('search of an existing page returns its first 5 sentences, without headings', async () => {
  const { search } = tools();
  assert.equal(
    await search.run('Paramore', { signal }),
    'Paramore is an American rock band from Franklin, Tennessee, formed in 2004. The band consists of Hayley Williams, Taylor York and Zac Farro. Williams and Farro are founding members. York joined in 2007. The band is signed to Fueled by Ramen.',
  );
  const request = server.requests.at(-1);
  assert.equal(request?.params.get('titles'), 'Paramore');
  assert.equal(request?.params.get('prop'), 'extracts|pageprops');
  assert.equal(request?.params.get('explaintext'), '1');
  assert.equal(request?.params.get('redirects'), '1');
  assert.equal(request?.params.get('formatversion'), '2');
});

test('search follows redirects and case-only differences (like the "Go" search)', async () => {
  const { search } = tools();
  assert.match(String(await search.run('Paramore (band)', { signal })), /^Paramore is an American rock band/);
  assert.match(String(await search.run('paramore', { signal })), /^Paramore is an American rock band/);
  assert.equal(
    await search.run('hayley williams', { signal }),
    'Hayley Williams is an American singer. She is the lead vocalist of Paramore.',
  );
});

test('search of a missing page lists up to 5 similar titles as the paper prints them', async () => {
  const { search } = tools();
  assert.equal(
    await search.run('Paramour Band', { signal }),
    `Could not find Paramour Band. Similar: ['Paramore', 'Paramour (film)', "Paramore's Riot!", 'Band', 'Paramount'].`,
  );
  const request = server.requests.at(-1);
  assert.equal(request?.params.get('list'), 'search');
  assert.equal(request?.params.get('srsearch'), 'Paramour Band');
  assert.equal(request?.params.get('srlimit'), '5');
  assert.equal(await search.run('Qwxyzzy', { signal }), 'Could not find Qwxyzzy. Similar: [].');
});

test('a disambiguation page answers like the paper: Could not find [entity] with similar titles', async () => {
  const { search } = tools();
  assert.equal(
    await search.run('Franklin', { signal }),
    "Could not find [Franklin]. Similar: ['Franklin, Tennessee', 'Benjamin Franklin', 'Franklin (TV series)'].",
  );
});

test('lookup walks the matching sentences as (Result k / n), then says No more results.', async () => {
  const { search, lookup } = tools();
  await search.run('Paramore', { signal });
  assert.equal(
    await lookup.run('franklin', { signal }),
    '(Result 1 / 3) Paramore is an American rock band from Franklin, Tennessee, formed in 2004.',
  );
  assert.equal(
    await lookup.run('franklin', { signal }),
    '(Result 2 / 3) Hayley Williams moved to Franklin in 2002.',
  );
  assert.equal(
    await lookup.run('franklin', { signal }),
    '(Result 3 / 3) The band formed in Franklin in 2004.',
  );
  assert.equal(await lookup.run('franklin', { signal }), 'No more results.');
  assert.equal(await lookup.run('franklin', { signal }), 'No more results.');
  assert.equal(await lookup.run('Formation', { signal }), 'No more results.', 'headings are not sentences');
});

test('a new keyword restarts at 1, and so does a new search', async () => {
  const { search, lookup } = tools();
  await search.run('Paramore', { signal });
  assert.equal(await lookup.run('2007', { signal }), '(Result 1 / 2) York joined in 2007.');
  assert.equal(
    await lookup.run('2007', { signal }),
    '(Result 2 / 2) Their second album, Riot!, was released in 2007.',
  );
  assert.match(String(await lookup.run('Franklin', { signal })), /^\(Result 1 \/ 3\) Paramore is/);
  assert.match(String(await lookup.run('2007', { signal })), /^\(Result 1 \/ 2\) York joined/);
  await search.run('Tennessee', { signal });
  assert.equal(await lookup.run('2007', { signal }), 'No more results.');
  assert.equal(
    await lookup.run('Franklin', { signal }),
    '(Result 1 / 1) Franklin is a city south of Nashville.',
  );
});

test('a failed search keeps the current page, as in the paper', async () => {
  const { search, lookup } = tools();
  await search.run('Paramore', { signal });
  await search.run('Paramour Band', { signal });
  assert.match(String(await lookup.run('Ramen', { signal })), /^\(Result 1 \/ 1\) The band is signed/);
});

test('lookup before any page, and empty inputs, are errors that say what to do', async () => {
  const { search, lookup } = tools();
  await assert.rejects(async () => lookup.run('Franklin', { signal }), /Use search\[entity\] first/);
  await assert.rejects(async () => search.run('  ', { signal }), /Empty entity/);
  await search.run('Paramore', { signal });
  await assert.rejects(async () => lookup.run('', { signal }), /Empty keyword/);
});

test('each created pair has its own state', async () => {
  const first = tools();
  const second = tools();
  await first.search.run('Paramore', { signal });
  await assert.rejects(async () => second.lookup.run('Franklin', { signal }), /no current page/);
});

test('the tools run through the router, errors becoming observations', async () => {
  const router = createToolRouter(
    createWikipediaTools({ backend: wikipediaApi({ baseUrl: server.apiUrl }) }),
  );
  assert.deepEqual(router.names, ['search', 'lookup']);
  const early = await router.call('lookup', 'Franklin');
  assert.equal(early.ok, false);
  assert.match(
    early.observation,
    /^Error: There is no current page to look up in\. Use search\[entity\] first/,
  );
  const found = await router.call('search', 'Paramore');
  assert.equal(found.ok, true);
  assert.match(found.observation, /^Paramore is an American rock band/);
  assert.equal(
    (await router.call('lookup', 'Ramen')).observation,
    '(Result 1 / 1) The band is signed to Fueled by Ramen.',
  );
  const long = await router.call('search', 'x'.repeat(201));
  assert.match(long.observation, /^Error: the input to search is 201 characters; the limit is 200/);
});

test('the default User-Agent names taoloop and its version; a custom one is sent as given', async () => {
  assert.match(DEFAULT_USER_AGENT, /^taoloop\/\d+\.\d+\.\d+ \(https:\/\/github\.com\/taoloop\/taoloop\)$/);
  await tools().search.run('Paramore', { signal });
  assert.equal(server.requests.at(-1)?.headers['user-agent'], DEFAULT_USER_AGENT);
  await tools({ userAgent: 'my-bot/1.0 (me@example.org)' }).search.run('Paramore', { signal });
  assert.equal(server.requests.at(-1)?.headers['user-agent'], 'my-bot/1.0 (me@example.org)');
});

test('a server that never answers fails within the timeout, without retrying', async () => {
  await withServer(['hang', 'hang', 'hang'], async (fake) => {
    const { search } = tools({ baseUrl: fake.apiUrl, timeoutMs: 200 });
    const started = performance.now();
    await assert.rejects(async () => search.run('Paramore', { signal }), {
      message: 'Wikipedia API timed out after 200 ms',
    });
    assert.ok(performance.now() - started < 1500);
    assert.equal(fake.requests.length, 1);
  });
});

test('HTTP 503 is retried with backoff, then succeeds', async () => {
  await withServer([{ status: 503 }, { status: 502 }], async (fake) => {
    const { search } = tools({ baseUrl: fake.apiUrl });
    assert.match(String(await search.run('Paramore', { signal })), /^Paramore is/);
    assert.equal(fake.requests.length, 3);
  });
});

test('after maxRetries the HTTP error says the status, the URL and the attempts', async () => {
  await withServer([{ status: 503 }, { status: 503 }, { status: 503 }], async (fake) => {
    const { search } = tools({ baseUrl: fake.apiUrl });
    await assert.rejects(async () => search.run('Paramore', { signal }), {
      message: `HTTP 503 from ${fake.apiUrl} (after 3 attempts)`,
    });
    assert.equal(fake.requests.length, 3);
  });
});

test('HTTP 429 waits for Retry-After; a very long one fails at once', async () => {
  await withServer([{ status: 429, headers: { 'Retry-After': '1' } }], async (fake) => {
    const started = performance.now();
    assert.match(
      String(await tools({ baseUrl: fake.apiUrl }).search.run('Paramore', { signal })),
      /^Paramore/,
    );
    assert.ok(performance.now() - started >= 950, 'waited the second the server asked for');
    assert.equal(fake.requests.length, 2);
  });
  await withServer([{ status: 429, headers: { 'Retry-After': '120' } }], async (fake) => {
    await assert.rejects(async () => tools({ baseUrl: fake.apiUrl }).search.run('Paramore', { signal }), {
      message: `HTTP 429 from ${fake.apiUrl}; it asked to retry after 120 s`,
    });
  });
});

test('HTTP 404 and API errors are not retried', async () => {
  await withServer([{ status: 404 }], async (fake) => {
    await assert.rejects(async () => tools({ baseUrl: fake.apiUrl }).search.run('Paramore', { signal }), {
      message: `HTTP 404 from ${fake.apiUrl}`,
    });
    assert.equal(fake.requests.length, 1);
  });
  const apiError = JSON.stringify({ error: { code: 'maxlag', info: 'Waiting for a database server.' } });
  await withServer([{ status: 200, body: apiError }], async (fake) => {
    await assert.rejects(async () => tools({ baseUrl: fake.apiUrl }).search.run('Paramore', { signal }), {
      message: 'Wikipedia API error maxlag: Waiting for a database server.',
    });
  });
});

test('an unreachable server is retried, then reported', async () => {
  const fake = await startFakeWikipedia();
  const url = fake.apiUrl;
  await fake.close();
  await assert.rejects(
    async () => tools({ baseUrl: url }).search.run('Paramore', { signal }),
    (error: Error) => {
      assert.match(error.message, new RegExp(`^Could not reach ${url.replaceAll('.', '\\.')}: ECONNREFUSED`));
      assert.match(error.message, /\(after 3 attempts\)$/);
      return true;
    },
  );
});

test('cancelling the tool signal aborts the request', async () => {
  await withServer(['hang'], async (fake) => {
    const controller = new AbortController();
    const running = tools({ baseUrl: fake.apiUrl }).search.run('Paramore', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(async () => running, { message: 'Wikipedia request was cancelled' });
  });
});

test('with cacheDir, a repeated search makes no HTTP request, even from a new backend', async () => {
  const cacheDir = await mkdtemp(path.join(tmpdir(), 'taoloop-wiki-cache-'));
  try {
    const before = server.requests.length;
    const first = await tools({ cacheDir }).search.run('Paramore', { signal });
    assert.equal(server.requests.length, before + 1);
    assert.equal(await tools({ cacheDir }).search.run('Paramore', { signal }), first);
    assert.equal(server.requests.length, before + 1);
    assert.equal((await readdir(cacheDir)).filter((name) => name.endsWith('.json')).length, 1);
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
});

test('API errors are not cached', async () => {
  const cacheDir = await mkdtemp(path.join(tmpdir(), 'taoloop-wiki-cache-'));
  const apiError = JSON.stringify({ error: { code: 'ratelimited', info: 'Slow down.' } });
  try {
    await withServer([{ status: 200, body: apiError }], async (fake) => {
      const { search } = tools({ baseUrl: fake.apiUrl, cacheDir });
      await assert.rejects(async () => search.run('Paramore', { signal }), /ratelimited/);
      assert.match(String(await search.run('Paramore', { signal })), /^Paramore is/);
      assert.equal(fake.requests.length, 2);
    });
  } finally {
    await rm(cacheDir, { recursive: true, force: true });
  }
});

test('bad options are refused when the backend is created', () => {
  assert.throws(() => wikipediaApi({ timeoutMs: 0 }), RangeError);
  assert.throws(() => wikipediaApi({ maxRetries: -1 }), RangeError);
  assert.throws(() => wikipediaApi({ baseUrl: 'en.wikipedia.org/w/api.php' }), RangeError);
});

test('sentences split like the paper: lines, then ". ", the removed period put back', () => {
  assert.deepEqual(pageSentences('A b c. D e f.\n\n  G h.  \nThe U.S. Army is big. Ok'), [
    'A b c.',
    'D e f.',
    'G h.',
    'The U.S.',
    'Army is big.',
    'Ok',
  ]);
});

test('similar titles are written as a Python list, at most 5', () => {
  assert.equal(
    notFoundObservation('X', ['a', "b's", 'c"d\'', 'back\\slash', 'e', 'f']),
    `Could not find X. Similar: ['a', "b's", 'c"d\\'', 'back\\\\slash', 'e'].`,
  );
});

test('Retry-After is read as seconds or as an HTTP date', () => {
  assert.equal(parseRetryAfter('3'), 3000);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter('soon'), undefined);
  const now = Date.parse('2024-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Mon, 01 Jan 2024 00:00:05 GMT', now), 5000);
});
