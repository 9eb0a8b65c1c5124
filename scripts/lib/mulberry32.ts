/** mulberry32, for scripts, bench and tests: the one copy is in src/util/mulberry32.ts. */
export { mulberry32 } from '../../src/util/mulberry32.js';
