/**
 * A run that waits for a person and survives a kill at any point. It pauses before sending an email; its
 * state goes to a file (a database row in an app); a later process resumes it with the person's decision.
 *
 * - `ask` runs until the email needs approval and stores the paused state in <file>.
 * - `decide` claims the state (renames it to <file>.running, which only one process can do), then resumes
 *   it. Before its first new effect the run hands over a checkpoint holding the decision, and another after
 *   each effect completes; each replaces <file>.running, written atomically.
 * - `continue` goes on with a resume whose process was killed (in an app: a job that finds runs whose lease
 *   ran out), from its latest checkpoint. It repeats at most the one effect that was in flight: a model
 *   call, or the email, which the outbox drops by its `callId` (an email service's idempotency key).
 *
 * Run (any model spec `taoloop models` accepts; the test runs it against a local OpenAI-compatible server):
 *   TAOLOOP_MODEL=openai:gpt-4o-mini TAOLOOP_RUN_SECRET=<32+ chars> npx tsx examples/app/approve-later.ts ask state.json
 *   TAOLOOP_MODEL=... TAOLOOP_RUN_SECRET=... npx tsx examples/app/approve-later.ts decide state.json approve
 *   TAOLOOP_MODEL=... TAOLOOP_RUN_SECRET=... npx tsx examples/app/approve-later.ts continue state.json
 */
import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import {
  type ApprovalDecision,
  defineTool,
  type RunState,
  resolveModelSpec,
  resumeAgent,
  runAgent,
} from 'taoloop';

const [command, file = 'state.json', answer = 'approve'] = process.argv.slice(2);
const running = `${file}.running`;
const outbox = `${file}.outbox`;

const sendEmail = defineTool({
  name: 'send_email',
  description: 'Sends an email. Input: the address.',
  input: 'text',
  effects: 'external',
  run: async (to, context) => {
    // The email service keeps the keys it has seen: the same call made again is not sent twice.
    const key = context?.callId ?? '';
    const sent = existsSync(outbox) ? readFileSync(outbox, 'utf8').split('\n') : [];
    if (sent.includes(`${key} ${to}`)) {
      console.log(`(already sent to ${to})`);
    } else {
      console.log(`(sending the email to ${to})`);
      appendFileSync(outbox, `${key} ${to}\n`);
    }
    return `sent to ${to}`;
  },
});

/** Writes a state whole or not at all: a kill mid-write leaves the previous one. */
function store(path: string, state: RunState): void {
  writeFileSync(`${path}.tmp`, JSON.stringify(state));
  renameSync(`${path}.tmp`, path);
}

const options = {
  model: await resolveModelSpec(process.env.TAOLOOP_MODEL ?? 'openai:gpt-4o-mini'),
  tools: [sendEmail],
  durable: {
    pauseForApproval: true,
    // Signed: a state changed in storage is refused. Use a long random secret from your configuration.
    secret: process.env.TAOLOOP_RUN_SECRET ?? 'example secret: replace with 32+ random characters',
    onCheckpoint: (checkpoint: RunState) => store(running, checkpoint),
  },
};

/** Resumes `state` (a paused state with the decisions, or a checkpoint as it is) to its end or next pause. */
async function resume(state: RunState, decisions?: Record<string, ApprovalDecision>): Promise<void> {
  const result = await resumeAgent({ ...options, state, ...(decisions && { decisions }) });
  // Paused again (another approval): the new state waits in the file for the next decision.
  if (result.status === 'paused') store(file, result.state!);
  console.log(`${result.status}: ${result.answer ?? result.error ?? ''}`);
  rmSync(running, { force: true });
}

if (command === 'ask') {
  const result = await runAgent({ ...options, question: 'Email ann@example.com that the report is ready.' });
  if (result.status === 'paused') {
    store(file, result.state!);
    for (const request of result.pending ?? []) console.log(`waiting: ${request.tool}[${request.input}]`);
  } else console.log(`${result.status}: ${result.answer ?? result.error ?? ''}`);
} else if (command === 'decide') {
  // Claim the state first (in a database: mark the row running, and go on only if this request did).
  try {
    renameSync(file, running);
  } catch {
    console.error(
      `nothing waits for a decision at ${file}: already decided (a killed resume goes on with \`continue\`)`,
    );
    process.exit(1);
  }
  const state = JSON.parse(readFileSync(running, 'utf8')) as RunState;
  const decision: ApprovalDecision =
    answer === 'approve' ? { type: 'approve' } : { type: 'reject', reason: answer };
  await resume(state, Object.fromEntries(state.pending.map((request) => [request.id, decision])));
} else if (command === 'continue') {
  if (!existsSync(running)) {
    console.error(`nothing to continue at ${running}`);
    process.exit(1);
  }
  const state = JSON.parse(readFileSync(running, 'utf8')) as RunState;
  if (state.checkpoint) {
    await resume(state);
  } else {
    // Killed before its first checkpoint: nothing ran and the decision was not stored. Ask for it again.
    renameSync(running, file);
    console.log(`the decision was not stored: decide again (${file} waits for it)`);
  }
} else {
  console.error('usage: approve-later.ts ask|decide|continue <state file> [approve|<reason to reject>]');
  process.exitCode = 2;
}
