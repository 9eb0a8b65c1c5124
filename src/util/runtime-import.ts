/**
 * Importing an optional peer dependency at run time only, out of sight of an app's bundler.
 *
 * A bundler follows every `import('name')` with a string literal and fails when `name` is not installed,
 * even if the code that imports it never runs in that app. A specifier held in a variable is not followed:
 * esbuild, Rollup, Vite (Rolldown) and Bun leave `import(specifier)` as it is in their output, and webpack
 * does too with `webpackIgnore` (without it, it warns "Critical dependency: the request of a dependency is
 * an expression"); `@vite-ignore` keeps Vite's import analysis quiet. At run time the import is resolved
 * the usual way: by Node or Bun from `node_modules`, by a page through its import map.
 *
 * Use it only for a package an app may lack and never needs bundled (the hosted providers, used by
 * `resolveModelSpec`). A package the app must bundle when it uses it (wllama in the browser) is passed in
 * by the app instead (`BrowserModelOptions.wllama`).
 *
 * @module
 */

/**
 * `import(specifier)` that bundlers leave alone (see the module notes): the module, typed as the caller
 * says (`T` is not checked).
 *
 * @throws whatever the runtime's `import()` throws: Node's `ERR_MODULE_NOT_FOUND` for a package that is
 *   not installed, a browser's `TypeError` ("Failed to resolve module specifier") for a bare name no import
 *   map resolves.
 */
export function importAtRunTime<T = unknown>(specifier: string): Promise<T> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier) as Promise<T>;
}
