import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'node/index': 'src/node/index.ts',
    'testing/index': 'src/testing/index.ts',
    'restate/index': 'src/restate/index.ts',
    'browser/index': 'src/browser/index.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm'],
  target: 'node20',
  dts: {
    entry: {
      index: 'src/index.ts',
      'node/index': 'src/node/index.ts',
      'testing/index': 'src/testing/index.ts',
      'restate/index': 'src/restate/index.ts',
      'browser/index': 'src/browser/index.ts',
    },
  },
  clean: true,
  splitting: true,
  // No source maps: they would point at sources the package does not ship (and embedding them doubles its size).
  sourcemap: false,
});
