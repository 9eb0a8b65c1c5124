/**
 * Optional peer dependencies are loaded at run time only (so that an app's bundler never looks for them;
 * test/package/bundlers.test.ts bundles the package): the hosted providers through `importProvider`, and
 * wllama as the app passes it in (`BrowserModelOptions.wllama`) or at run time. Here, in Node, where the
 * repository has them installed: they load, and what goes wrong says what to do.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { browserModel } from '../../src/models/browser.js';
import { ModelConfigError } from '../../src/models/errors.js';
import { importProvider } from '../../src/models/providers.js';

describe('optional peer dependencies load at run time', () => {
  test('importProvider imports the installed provider package by its name', async () => {
    const openai = await importProvider<{ createOpenAI: unknown }>('openai');
    assert.equal(typeof openai.createOpenAI, 'function');
    const google = await importProvider<{ createGoogleGenerativeAI: unknown }>('google');
    assert.equal(typeof google.createGoogleGenerativeAI, 'function');
  });

  test('browserModel uses the wllama module it is given (a function that imports it, or the module)', async () => {
    const constructed: unknown[] = [];
    class Wllama {
      constructor(paths: unknown) {
        constructed.push(paths);
      }
      exit = async () => undefined;
    }
    const fake = { Wllama, LoggerWithoutDebug: {} };
    for (const wllama of [fake, async () => fake]) {
      // The wasm URL cannot be fetched in Node: the load fails after the module was used.
      await assert.rejects(
        browserModel({
          model: '/m.gguf',
          wasmUrl: 'http://127.0.0.1:9/wllama.wasm',
          wllama,
          loadTimeoutMs: 5_000,
        }),
        ModelConfigError,
      );
    }
    assert.deepEqual(constructed, [
      { default: 'http://127.0.0.1:9/wllama.wasm' },
      { default: 'http://127.0.0.1:9/wllama.wasm' },
    ]);
  });

  test('a wllama option that is not the module, or whose import fails, says what to pass or install', async () => {
    const options = { model: '/m.gguf', wasmUrl: '/wllama.wasm' };
    await assert.rejects(browserModel({ ...options, wllama: { default: {} } }), (error: unknown) => {
      assert.ok(error instanceof ModelConfigError);
      assert.match(
        error.message,
        /is not @wllama\/wllama's module .*pass `wllama: \(\) => import\('@wllama\/wllama\/esm\/index\.js'\)`/,
      );
      return true;
    });
    const missing = Object.assign(new Error("Cannot find package '@wllama/wllama'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await assert.rejects(
      browserModel({ ...options, wllama: () => Promise.reject(missing) }),
      (error: unknown) => {
        assert.ok(error instanceof ModelConfigError);
        assert.match(
          error.message,
          /could not be loaded by the wllama option \(Cannot find package '@wllama\/wllama'\)\. .*npm install @wllama\/wllama@3\.8\.1/,
        );
        assert.equal(error.cause, missing);
        return true;
      },
    );
  });
});
