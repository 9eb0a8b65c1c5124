/**
 * A run that waits for a person: it pauses before sending an email, its state goes to a file (a database
 * row in an app), and a later process resumes it with the person's decision. Nothing runs twice: the state
 * is claimed (renamed away, which only one process can do) before it is resumed, so a second `decide` finds
 * nothing to resume; taoloop keeps no record of resumed states, so this is the app's part.
 * Run (any model spec `taoloop models` accepts; the test runs it against a local OpenAI-compatible server):
 *   TAOLOOP_MODEL=openai:gpt-4o-mini TAOLOOP_RUN_SECRET=<32+ chars> npx tsx examples/app/approve-later.ts ask state.json
 *   TAOLOOP_MODEL=... TAOLOOP_RUN_SECRET=... npx tsx examples/app/approve-later.ts decide state.json approve
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { type ApprovalDecision, defineTool, resolveModelSpec, resumeAgent, runAgent } from 'taoloop';

const [command, file = 'state.json', answer = 'approve'] = process.argv.slice(2);
const sendEmail = defineTool({
  name: 'send_email',
  description: 'Sends an email. Input: the address.',
  input: 'text',
  effects: 'external',
  run: async (to) => {
    console.log(`(sending the email to ${to})`);
    return `sent to ${to}`;
  },
});
const options = {
  model: await resolveModelSpec(process.env.TAOLOOP_MODEL ?? 'openai:gpt-4o-mini'),
  tools: [sendEmail],
  durable: {
    pauseForApproval: true,
    // Signed: a state changed in storage is refused. Use a long random secret from your configuration.
    secret: process.env.TAOLOOP_RUN_SECRET ?? 'example secret: replace with 32+ random characters',
  },
};

if (command === 'ask') {
  const result = await runAgent({ ...options, question: 'Email ann@example.com that the report is ready.' });
  if (result.status === 'paused') {
    writeFileSync(file, JSON.stringify(result.state));
    for (const request of result.pending ?? []) console.log(`waiting: ${request.tool}[${request.input}]`);
  } else console.log(`${result.status}: ${result.answer ?? result.error ?? ''}`);
} else if (command === 'decide') {
  // Claim the state first (in a database: delete the row and go on only if this request deleted it).
  const claimed = `${file}.resumed`;
  try {
    renameSync(file, claimed);
  } catch {
    console.error(`nothing to resume at ${file}: already decided, or never paused`);
    process.exit(1);
  }
  const state = JSON.parse(readFileSync(claimed, 'utf8'));
  const decision: ApprovalDecision =
    answer === 'approve' ? { type: 'approve' } : { type: 'reject', reason: answer };
  const decisions: Record<string, ApprovalDecision> = Object.fromEntries(
    state.pending.map((request: { id: string }) => [request.id, decision]),
  );
  const result = await resumeAgent({ ...options, state, decisions });
  // Paused again (another approval): the new state waits in the file for the next decision.
  if (result.status === 'paused') writeFileSync(file, JSON.stringify(result.state));
  console.log(`${result.status}: ${result.answer ?? result.error ?? ''}`);
} else {
  console.error('usage: approve-later.ts ask|decide <state file> [approve|<reason to reject>]');
  process.exitCode = 2;
}
