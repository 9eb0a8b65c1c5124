import { defineConfig } from 'tsup';

// tsup writes the type declarations only (`dts.only`); the JavaScript is Rollup's (`rollup.config.mjs`,
// which says why). `npm run build` runs both: Rollup first, since it empties dist/.
const entry = {
  index: 'src/index.ts',
  'node/index': 'src/node/index.ts',
  'testing/index': 'src/testing/index.ts',
  'restate/index': 'src/restate/index.ts',
  'protocol/index': 'src/protocol/index.ts',
  'browser/index': 'src/browser/index.ts',
};

export default defineConfig({
  entry,
  format: ['esm'],
  target: 'node20',
  dts: { entry, only: true },
  clean: false,
});
