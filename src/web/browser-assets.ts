/**
 * What the playground page needs to run the ReAct loop itself, with the browser model (`taoloop/browser`'s
 * `browserModel`, llama.cpp in WebAssembly through @wllama/wllama): the built `taoloop/browser` bundle
 * (decimal.js and minisearch are inside it), @wllama/wllama and the GGUF, served from a fixed list of paths (no path from a request is ever joined
 * to a folder, except a chunk name that matches a strict pattern).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The model the page can run itself (see `PlaygroundOptions.browserModel`). */
export interface BrowserModelSource {
  /** The picker's label: `<file name> · runs in this page`. */
  label: string;
  /** Where the page fetches the GGUF: `/api/browser-model.gguf` for a local file, else the URL given. */
  url: string;
  /** The local file, when a path was given. */
  file?: string;
  /** The origin the page may fetch the model from, when it is not the playground's own. */
  connectOrigin?: string;
}

/** Where the page fetches a local GGUF (with the access token, like every `/api/` path). */
export const BROWSER_MODEL_PATH = '/api/browser-model.gguf';

/**
 * Reads `given` (a local `.gguf` path or an `http(s)://` URL) into a {@link BrowserModelSource}.
 *
 * @throws {Error} when a path is not an existing file, or a URL does not parse.
 */
export function browserModelSource(given: string): BrowserModelSource {
  if (/^https?:\/\//i.test(given)) {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new Error(`the browser model "${given}" is not a valid URL.`);
    }
    const name = decodeURIComponent(url.pathname.split('/').pop() || url.host);
    return { label: `${name} · runs in this page`, url: url.href, connectOrigin: url.origin };
  }
  const file = path.resolve(given);
  if (!existsSync(file) || !statSync(file).isFile())
    throw new Error(`the browser model "${given}" is not a file: give a .gguf file or an http(s) URL.`);
  return { label: `${path.basename(file)} · runs in this page`, url: BROWSER_MODEL_PATH, file };
}

/** URL path → [package, file inside it, content type]. */
const ASSETS: Readonly<Record<string, readonly [string, string, string]>> = {
  '/assets/browser/index.js': ['taoloop', 'dist/browser/index.js', 'text/javascript; charset=utf-8'],
  '/assets/wllama/index.js': ['@wllama/wllama', 'esm/index.js', 'text/javascript; charset=utf-8'],
  '/assets/wllama/wllama.wasm': ['@wllama/wllama', 'esm/wasm/wllama.wasm', 'application/wasm'],
};
/** The bundle's shared chunks (`dist/chunk-<hash>.js`), imported as `../chunk-<hash>.js` by the bundle. */
const CHUNK = /^\/assets\/(chunk-[A-Za-z0-9_-]{1,64}\.js)$/;

/** The import map the page needs for the bundle's bare imports. */
export const IMPORT_MAP = JSON.stringify({
  imports: {
    '@wllama/wllama/esm/index.js': '/assets/wllama/index.js',
  },
});
/** The import map's hash, for the Content-Security-Policy (the map is the page's only inline script). */
export const IMPORT_MAP_HASH = `'sha256-${createHash('sha256').update(IMPORT_MAP).digest('base64')}'`;

/** Whether `pathname` is one of the allow-listed asset paths (served without the token: code, no data). */
export function isAssetPath(pathname: string): boolean {
  return pathname in ASSETS || CHUNK.test(pathname);
}

/**
 * The file and content type of an asset path, or `undefined` for any other path.
 *
 * @throws {Error} when the asset is allow-listed but missing (e.g. `npm run build` was not run).
 */
export function assetFile(pathname: string): { file: string; type: string } | undefined {
  const chunk = CHUNK.exec(pathname)?.[1];
  const entry = chunk
    ? (['taoloop', `dist/${chunk}`, 'text/javascript; charset=utf-8'] as const)
    : ASSETS[pathname];
  if (!entry) return undefined;
  const [name, inside, type] = entry;
  const root = packageRoot();
  const dir = name === 'taoloop' ? root : dependencyDir(root, name);
  const file = dir && path.join(dir, inside);
  if (!file || !existsSync(file))
    throw new Error(
      `${name}/${inside} is missing: the in-page model needs the built package (npm run build) and @wllama/wllama installed.`,
    );
  return { file, type };
}

/** The folder of this package (the nearest `package.json` named `taoloop` above this module). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'taoloop') return dir;
    const up = path.dirname(dir);
    if (up === dir)
      throw new Error('cannot find the taoloop package folder to serve the in-page model from.');
    dir = up;
  }
}

/** The installed folder of package `name`, as Node would find it from `root`. */
function dependencyDir(root: string, name: string): string | undefined {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}
