/**
 * A fork of a finished run: the same question, model, tools and settings, run again from step `N` on.
 * Steps `1..N-1` are the parent's as recorded: their model turns are given back by the model (no call is
 * made), their tool calls by the tools (no tool runs, whatever its effects, nor an agent tool's nested
 * agent: the recorded observation comes back), their approvals as they were decided (nobody is asked
 * again). A trace is data, never permission: a replayed call whose outcome the trace does not record is
 * refused, never run. At step `N` the user may have
 * written the model's turn, and may play the tool: then the tool of step `N` does not run either, and the
 * text written is its output (worded like any tool's output, so the model sees what it would see). From
 * there the live model runs on.
 *
 * Everything goes through the loop as in any run: only the model and the tools are wrapped, so the fork's
 * trace holds every step, replayed ones included, and reads like any other.
 *
 * @module
 */
import { NESTED_RUNNER, type NestedRunner, nestedRunnerOf } from '../agent/run.js';
import type { ApprovalDecision, ApprovalRequest, Step } from '../agent/types.js';
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from '../models/types.js';
import { formatObservation, OUTPUT_BEGIN, OUTPUT_END } from '../react/observation.js';
import type { Tool, ToolContext } from '../tools/types.js';
import type { Trace } from '../trace/trace-format.js';

/** Where a fork comes from, as its trace header and the page record it. */
export interface ForkOrigin {
  /** The parent run's id. */
  run: string;
  /** The step (from 1) the fork starts at. */
  step: number;
  /** What the user wrote at that step: the model's turn, the observation (playing the tool), or both. */
  edited: ('turn' | 'observation')[];
  /** How many of the parent's steps are replayed as recorded (`step - 1`, or `step` when none was edited). */
  replayed: number;
}

/** What a run needs to be a fork: its origin, and how its model, tools and approvals replay the parent. */
export interface ForkSetup {
  origin: ForkOrigin;
  /** The live model, wrapped: the replayed turns first, then the live model's. */
  model(live: Model): Model;
  /** The run's tools, wrapped: a replayed call gives back its recorded output and runs nothing. */
  tools(tools: readonly Tool[]): Tool[];
  /** The decision on a replayed approval (nobody is asked), or `undefined` to ask as usual. */
  decision(request: ApprovalRequest): ApprovalDecision | undefined;
}

/** What a tool call of a replayed step gives back: its output, or the error it failed with. */
type Recorded = { ok: true; output: string } | { ok: false; error: string };

/**
 * The fork of `parent` at step `step` (1 to its number of steps), with the turn and observation the user
 * wrote there:
 * - the turn and observation as recorded (the observation as the page showed it): the parent's steps up to
 *   `step` are replayed, and the live model goes on after it;
 * - an observation written anew: the user plays the tool of `step` (it does not run), after the recorded
 *   turn or the one written;
 * - a turn written anew, the observation as recorded (or none given): that turn, and its action runs live;
 * - neither given: the live model writes step `step` anew.
 *
 * @throws {RangeError} for a step the parent does not have.
 */
export function planFork(
  parentId: string,
  parent: Trace,
  step: number,
  edit: { turn?: string | undefined; observation?: string | undefined },
): ForkSetup {
  const at = parent.steps[step - 1];
  if (!at || !Number.isInteger(step) || step < 1)
    throw new RangeError(`run "${parentId}" has ${parent.steps.length} steps; there is no step ${step}`);
  const turnEdited = edit.turn !== undefined && edit.turn !== at.modelText;
  const shown = [at.observation?.text, toolEnd(parent, step, 1)?.observation];
  const observationKept = edit.observation !== undefined && shown.includes(edit.observation);
  const playsTool = edit.observation !== undefined && !observationKept;
  // Nothing changed at `step`: it is replayed too, and the fork goes on after it.
  const replayed = !turnEdited && observationKept ? step : step - 1;
  const before = parent.steps.slice(0, replayed);
  const replies = before.map(recordedReply);
  if (turnEdited) replies.push({ text: edit.turn as string, usage: {}, finishReason: 'stop' });
  else if (playsTool) replies.push(recordedReply(at));
  const outputs = recordedOutputs(parent, before);
  if (playsTool) outputs.set(`${step}:1`, { ok: true, output: edit.observation as string });
  const decisions = recordedDecisions(before);
  const edited: ForkOrigin['edited'] = [];
  if (turnEdited) edited.push('turn');
  if (playsTool) edited.push('observation');
  return {
    origin: { run: parentId, step, edited, replayed },
    model: (live) => replayFirst(live, replies),
    tools: (tools) => tools.map((tool) => replayedTool(tool, outputs, replayed)),
    decision: (request) => {
      // `<run id>/step-<n>/call-<k>`: a request of the fork's own steps. A nested agent's (a longer id)
      // comes from a live step (replayed ones never run their agent again) and is asked as usual.
      const where = /^[^/]+\/step-(\d+)\/call-(\d+)$/.exec(request.id);
      if (!where) return undefined;
      const at = Number(where[1]);
      const key = `${at}:${where[2]}`;
      // A replayed call gives back its recorded outcome and runs nothing, whatever is decided here: the
      // recorded decision keeps the replay as it was. A call the trace has no outcome for is refused, so a
      // trace can never make a tool run (`replayedTool` would refuse it too).
      if (at <= replayed) {
        if (!outputs.has(key)) return { type: 'reject', reason: notRecorded(at, where[2]!) };
        return decisions.get(key) ?? { type: 'approve' };
      }
      // The user plays the tool of the fork's step: nothing runs, so there is nothing to ask.
      if (at === step && outputs.has(key)) return { type: 'approve' };
      return undefined;
    },
  };
}

/** The `tool-end` event of `step`'s `call`-th tool call. */
function toolEnd(trace: Trace, step: number, call: number) {
  const event = trace.events.find((e) => e.type === 'tool-end' && e.step === step && (e.call ?? 1) === call);
  return event?.type === 'tool-end' ? event : undefined;
}

/** A recorded step as the reply that produced it: no usage (no call is made, so nothing is spent). */
function recordedReply(step: Step): ModelResponse {
  return {
    text: step.modelText,
    ...(step.toolCall && { toolCalls: [step.toolCall, ...(step.otherCalls ?? []).map((c) => c.toolCall)] }),
    usage: {},
    finishReason: step.finishReason,
  };
}

/** `live`, but its first calls answered by `replies` in order, without calling it. */
function replayFirst(live: Model, replies: readonly ModelResponse[]): Model {
  let used = 0;
  const next = (request: ModelRequest): ModelResponse | undefined => {
    request.signal?.throwIfAborted();
    const reply = replies[used];
    if (reply === undefined) return undefined;
    used += 1;
    return structuredClone(reply);
  };
  const stream = live.stream?.bind(live);
  return {
    id: live.id,
    ...(live.contextWindowTokens !== undefined && { contextWindowTokens: live.contextWindowTokens }),
    ...(live.supportsToolCalls !== undefined && { supportsToolCalls: live.supportsToolCalls }),
    generate: (request) => {
      const reply = next(request);
      return reply ? Promise.resolve(reply) : live.generate(request);
    },
    ...(stream && {
      stream: (request: ModelRequest): AsyncIterable<ModelStreamPart> => {
        const reply = next(request);
        return reply ? replyStream(reply) : stream(request);
      },
    }),
  };
}

async function* replyStream(reply: ModelResponse): AsyncGenerator<ModelStreamPart> {
  if (reply.text) yield { type: 'text-delta', text: reply.text };
  for (const toolCall of reply.toolCalls ?? []) yield { type: 'tool-call', toolCall };
  yield { type: 'finish', usage: reply.usage, finishReason: reply.finishReason };
}

/** Why a call of a replayed step is refused: the parent's trace does not say what came of it. */
function notRecorded(step: number, call: string): string {
  return `the parent run's trace records no outcome for step ${step}${call === '1' ? '' : `, call ${call}`}; a fork replays the steps before its own and never runs their tools again`;
}

/**
 * `tool`, but a call listed in `outputs` (by `step:call`) gives back its recorded output and runs nothing,
 * and a call of a replayed step (`step <= replayed`) that is not listed is refused: a trace is data, so a
 * step it claims (an action whose outcome it does not record) never makes a tool run. Calls of the live
 * steps after those run the tool. An agent tool (`agentTool`) is wrapped the same way: its nested runner
 * (which `act` runs instead of `run`) replays or refuses as `run` does, so a replayed step never runs the
 * nested agent or its tools again.
 */
function replayedTool(tool: Tool, outputs: ReadonlyMap<string, Recorded>, replayed: number): Tool {
  const run = tool.run.bind(tool);
  /** The replayed outcome of `step:call`: recorded, refused, or `undefined` for a live call. */
  const replay = (step: number, call: string): Recorded | undefined => {
    const recorded = outputs.get(`${step}:${call}`);
    if (recorded) return recorded;
    return step <= replayed ? { ok: false, error: notRecorded(step, call) } : undefined;
  };
  // Only the tool's own string-keyed fields: a symbol (the nested runner) is set below, wrapped.
  const wrapped = {
    ...Object.fromEntries(Object.entries(tool)),
    run: (input: unknown, context: ToolContext) => {
      const where = /:step-(\d+)(?:-call-(\d+))?$/.exec(context?.callId ?? '');
      const outcome = where ? replay(Number(where[1]), where[2] ?? '1') : undefined;
      if (!outcome) return run(input as never, context);
      if (!outcome.ok) throw new Error(outcome.error);
      return outcome.output;
    },
  } as Tool & { [NESTED_RUNNER]?: NestedRunner };
  const nested = nestedRunnerOf(tool);
  if (nested) {
    wrapped[NESTED_RUNNER] = async function* (input, parent) {
      const outcome = replay(parent.step, String(parent.call));
      if (!outcome) return yield* nested(input, parent);
      return outcome.ok
        ? { ok: true, observation: outcome.output, durationMs: 0 }
        : { ok: false, observation: `Error: ${outcome.error}`, durationMs: 0 };
    };
  }
  return wrapped;
}

/** The recorded output of every tool call of `steps` that ran, by `step:call`. */
function recordedOutputs(trace: Trace, steps: readonly Step[]): Map<string, Recorded> {
  const outputs = new Map<string, Recorded>();
  for (const event of trace.events) {
    if (event.type !== 'tool-end' || event.step > steps.length) continue;
    const call = event.call ?? 1;
    const step = steps[event.step - 1];
    const full = call === 1 ? step?.observation?.fullText : undefined;
    const output = full ?? rawOutput(event.observation);
    // A tool that threw was worded `Error: <its message>` by the router: it throws the same again.
    const recorded: Recorded =
      event.ok || !output.startsWith('Error: ')
        ? { ok: true, output }
        : { ok: false, error: output.slice('Error: '.length) };
    outputs.set(`${event.step}:${call}`, recorded);
  }
  return outputs;
}

/**
 * The tool's output as it returned it, from the observation the model saw (`formatObservation`'s): the
 * begin / end markers taken off, and a line quoted because it posed as a step unquoted. Checked: worded
 * again it gives the same observation; when it would not, the observation itself is the output.
 */
export function rawOutput(observation: string): string {
  const begin = `${OUTPUT_BEGIN}\n`;
  const end = `\n${OUTPUT_END}`;
  if (!observation.startsWith(begin) || !observation.endsWith(end)) return observation;
  const lines = observation.slice(begin.length, observation.length - end.length).split('\n');
  const poses = (line: string) => !/[\r\n]/.test(line) && formatObservation(line).neutralisedLines > 0;
  const raw = lines
    .map((line) => (line.startsWith('> ') && poses(line.slice(2)) ? line.slice(2) : line))
    .join('\n');
  return formatObservation(raw).text === observation ? raw : observation;
}

/** The decisions on the approvals of `steps`, by `step:call`. */
function recordedDecisions(steps: readonly Step[]): Map<string, ApprovalDecision> {
  const decisions = new Map<string, ApprovalDecision>();
  for (const step of steps) {
    if (step.observation?.approval) decisions.set(`${step.index}:1`, step.observation.approval);
    step.otherCalls?.forEach((other, i) => {
      if (other.observation?.approval) decisions.set(`${step.index}:${i + 2}`, other.observation.approval);
    });
  }
  return decisions;
}
