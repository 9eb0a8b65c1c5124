/**
 * A typed answer: the model writes JSON that must match the schema; `result.output` is typed from it.
 * Run: TAOLOOP_MODEL=openai:gpt-4o-mini npx tsx examples/app/typed-answer.ts
 */
import { calculator, resolveModelSpec, runAgent } from 'taoloop';
import { z } from 'zod';

const model = await resolveModelSpec(process.env.TAOLOOP_MODEL ?? 'openai:gpt-4o-mini');

const result = await runAgent({
  model,
  tools: [calculator],
  question: 'Brightgrid Pro is 20 USD per seat a month. What do 7 seats cost for a year?',
  output: z.object({ totalUsd: z.number(), seats: z.number().int() }),
  // An answer that does not validate goes back to the model with what is wrong (2 corrections at most);
  // at the step limit, one last call without tools asks for the best answer so far.
  limits: { forceFinalAnswer: true },
  hooks: {
    // Your own rule: a message refuses the answer and goes back to the model.
    checkAnswer: ({ output }) => (output && output.totalUsd <= 0 ? 'the total must be positive' : undefined),
  },
});

if (result.output) {
  const total: number = result.output.totalUsd; // typed
  console.log(`total: ${total} USD for ${result.output.seats} seats${result.forced ? ' (forced)' : ''}`);
} else {
  console.log(`no answer: ${result.status} ${result.error ?? ''}`);
}
