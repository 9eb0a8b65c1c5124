/**
 * The 200 ms model server of `eval-throughput` and `restate-eval`, in its own process (as a real model
 * server would be), so that its CPU time is not charged to the process being measured:
 * `node --import tsx bench/eval-throughput/model-server.ts` prints its base URL on stdout, then serves
 * until its stdin closes (the parent exited) or SIGTERM. On exit it prints the number of requests served.
 *
 * @module
 */
import { startFakeOpenAI } from '../../test/helpers/fake-openai-server.js';
import { DELAY_MS, twoCallReply } from './workload.js';

const server = await startFakeOpenAI({
  replies: twoCallReply,
  responseDelayMs: DELAY_MS,
  usage: { promptTokens: 300, completionTokens: 15 },
  // Thousands of requests per bench run: keeping them would grow this process's heap and its GC pauses.
  keepRequests: false,
});
process.stdout.write(`${server.baseURL}\n`);
const stop = () => {
  process.stderr.write(`model server: ${server.received} requests served\n`);
  void server.close().finally(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.stdin.on('end', stop).resume();
