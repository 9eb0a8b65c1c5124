import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'testing/index': 'src/testing/index.ts',
    'restate/index': 'src/restate/index.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm'],
  target: 'node20',
  dts: {
    entry: {
      index: 'src/index.ts',
      'testing/index': 'src/testing/index.ts',
      'restate/index': 'src/restate/index.ts',
    },
  },
  clean: true,
  splitting: true,
  sourcemap: true,
});
