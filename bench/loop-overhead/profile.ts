/**
 * One contender at one episode length, in a loop, for a CPU profile: `node --cpu-prof --import tsx
 * bench/loop-overhead/profile.ts <taoloop-text|taoloop-native|ai-sdk|langchain> <steps> [seconds]`
 * (default 5 s after a 1 s warm-up). taoloop is bundled as in the benchmark. Prints µs per step on stderr;
 * every episode is checked as in the benchmark.
 *
 * @module
 */
import { bundleTaoloop, CONTENDERS, type ContenderKey, ensureLangChain } from './frameworks.js';
import { TOOL_OUTPUT } from './script.js';

const [key = '', stepsText = '32', secondsText = '5'] = process.argv.slice(2);
if (!Object.hasOwn(CONTENDERS, key)) throw new Error(`unknown contender ${key}`);
ensureLangChain((line) => process.stderr.write(`${line}\n`));
await bundleTaoloop();
let calls = 0;
const contender = await CONTENDERS[key as ContenderKey](
  () => {
    calls++;
    return TOOL_OUTPUT;
  },
  { steps: Number(stepsText), kind: 'sequential' },
);

async function loop(ms: number): Promise<{ episodes: number; cpuUs: number }> {
  calls = 0;
  let episodes = 0;
  const cpu = process.cpuUsage();
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const answer = await contender.run();
    contender.forget();
    if (answer !== contender.expected) throw new Error(`off script: ${JSON.stringify(answer)}`);
    episodes++;
  }
  if (calls !== episodes * contender.actions) throw new Error(`${calls} tool calls in ${episodes} episodes`);
  const used = process.cpuUsage(cpu);
  return { episodes, cpuUs: used.user + used.system };
}

await loop(1000);
const { episodes, cpuUs } = await loop(Number(secondsText) * 1000);
process.stderr.write(
  `${contender.name}, ${stepsText} steps: ${episodes} episodes, ` +
    `${Math.round(cpuUs / episodes / Number(stepsText))} µs/step (CPU)\n`,
);
