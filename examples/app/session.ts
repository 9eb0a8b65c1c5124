/**
 * A conversation kept for you: `createSession` asks each question with the conversation so far, and
 * `createFileStore` keeps it on disk as traces (one JSONL file per question, linked by the conversation
 * id), so another process, `taoloop runs` / `taoloop trace`, and `taoloop run --continue <id>` find it.
 * Run: TAOLOOP_MODEL=openai:gpt-4o-mini npx tsx examples/app/session.ts [folder, default .taoloop/runs]
 */
import { calculator, createFileStore, createSession, resolveModelSpec } from 'taoloop/node';

const model = await resolveModelSpec(process.env.TAOLOOP_MODEL ?? 'openai:gpt-4o-mini');
const store = createFileStore(process.argv[2] ?? '.taoloop/runs');

const chat = createSession({ model, tools: [calculator], store });
const first = await chat.send('Brightgrid Pro is 20 USD per seat a month. Price per seat per year?');
console.log('first:', first.answer);
const second = await chat.send('And for 7 seats a year?'); // the first question and answer go with it
console.log('second:', second.answer);

// Later, in any process: the same id picks the conversation up from the store.
const again = createSession({ model, tools: [calculator], store, conversationId: chat.conversationId });
console.log('turns kept:', (await again.messages()).length);
