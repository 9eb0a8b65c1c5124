/**
 * Follow-up questions: the conversation goes in, the conversation comes out.
 * Run: TAOLOOP_MODEL=openai:gpt-4o-mini npx tsx examples/app/follow-ups.ts
 * (any model spec `taoloop models` accepts; the test runs it against a local OpenAI-compatible server)
 */
import { calculator, resolveModelSpec, runAgent } from 'taoloop';

const model = await resolveModelSpec(process.env.TAOLOOP_MODEL ?? 'openai:gpt-4o-mini');
const tools = [calculator];

const first = await runAgent({
  model,
  tools,
  messages: [
    { role: 'user', content: 'Brightgrid Pro is 20 USD per seat a month. Price per seat per year?' },
  ],
});
console.log('first:', first.answer);

// The earlier question and answer reach the model as conversation (its steps are not sent again).
const second = await runAgent({
  model,
  tools,
  messages: [...first.messages, { role: 'user', content: 'And for 7 seats a year?' }],
});
console.log('second:', second.answer);
console.log('turns:', second.messages.length);
