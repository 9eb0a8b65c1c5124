/**
 * Each model text once: how trace lines refer to a step's model text instead of repeating it.
 *
 * A model turn reaches several events: `model-end` carries the text, its parsed turn (whose thought,
 * action input and answer are pieces of that text) and its reasoning; `step-end` repeats all of them in the
 * step; `run-end` repeats every step and the answer. Written as they are, a 1 MB turn made a trace of
 * about 8 MB. Since trace format 2 the writer keeps the text once, on `model-end`, and stores the other
 * copies as a {@link TextRef} (a slice of that text) or leaves them out where the reader can restore them
 * from an earlier line (a step's `modelText`, `turn` and `reasoning` from its `model-end`; `run-end`'s
 * `steps` from the `step-end` lines). {@link createTraceExpander} gives back the events as they were, except
 * a paused run's `state` (on `run-pause` and `run-end`), which is not written: it is the resume token the
 * caller keeps (`result.state`), and its journal would repeat every model text.
 *
 * @module
 */
import type { AgentEvent, RunResult, Step } from '../agent/types.js';
import type { Turn } from '../react/turn.js';

/**
 * A string stored as `text.slice(from, to)` of the model text of step `modelText` (the `text` of that
 * step's latest `model-end` line). Found only where the trace format has a string: a turn's fields, a
 * step's `transcriptText` and `reasoning`, `invented-observation`'s `droppedText`, a tool call's and an
 * approval request's `input`, `run-end`'s `answer` and the answer message.
 */
export interface TextRef {
  modelText: number;
  from: number;
  to: number;
}

/** Shorter strings are written as they are: a reference would save nothing worth a less readable line. */
const MIN_REF_CHARS = 64;

/** What a `model-end` line said about its step, for the lines after it. */
interface ModelEnd {
  text: string;
  turn: Turn;
  reasoning?: string | undefined;
}

/** Writes each event with the copies of model text it repeats replaced by references. */
export function createTraceCompactor(): (event: AgentEvent) => unknown {
  const ends = new Map<number, ModelEnd>();
  let stepsWritten: Step[] = [];

  const ref = (value: string, step: number): string | TextRef => {
    const text = ends.get(step)?.text;
    if (text === undefined || value.length < MIN_REF_CHARS) return value;
    const from = text.indexOf(value);
    return from < 0 ? value : { modelText: step, from, to: from + value.length };
  };
  const refTurn = (turn: Turn, step: number) =>
    Object.fromEntries(
      Object.entries(turn).map(([key, value]) => [
        key,
        key === 'type' || key === 'kind'
          ? value
          : typeof value === 'string'
            ? ref(value, step)
            : Array.isArray(value)
              ? value.map((item) => (typeof item === 'string' ? ref(item, step) : item))
              : value,
      ]),
    );
  const compactStep = (step: Step) => {
    const end = ends.get(step.index);
    const { modelText, turn, reasoning, ...rest } = step;
    return {
      ...rest,
      ...(modelText !== end?.text && { modelText }),
      transcriptText: ref(step.transcriptText, step.index),
      ...(turn !== end?.turn && { turn: refTurn(turn, step.index) }),
      // Absent: the model-end's reasoning; null: none although the model-end had some.
      ...(reasoning !== end?.reasoning && {
        reasoning: reasoning === undefined ? null : ref(reasoning, step.index),
      }),
    };
  };
  const compactResult = (result: RunResult) => {
    // A paused run's `state` (its journal repeats every model text) is the caller's resume token, not kept.
    const { steps, answer, messages, state: _state, ...rest } = result;
    const sameSteps = steps.length === stepsWritten.length && steps.every((s, i) => s === stepsWritten[i]);
    const last = steps.at(-1)?.index ?? 0;
    return {
      ...rest,
      ...(answer !== undefined && { answer: ref(answer, last) }),
      messages: messages.map((message, i) =>
        i === messages.length - 1 && message.role === 'assistant' && typeof message.content === 'string'
          ? { ...message, content: ref(message.content, last) }
          : message,
      ),
      ...(!sameSteps && { steps }),
    };
  };

  return (event) => {
    switch (event.type) {
      case 'run-start':
        stepsWritten = [];
        return event;
      case 'model-end': {
        ends.set(event.step, { text: event.text, turn: event.turn, reasoning: event.reasoning });
        const { reasoning } = event;
        return {
          ...event,
          turn: refTurn(event.turn, event.step),
          ...(reasoning !== undefined && { reasoning: ref(reasoning, event.step) }),
        };
      }
      case 'invented-observation':
        return { ...event, droppedText: ref(event.droppedText, event.step) };
      case 'tool-start':
      case 'tool-end':
        return { ...event, input: ref(event.input, event.step) };
      case 'approval-start':
      case 'approval-end':
        return { ...event, request: { ...event.request, input: ref(event.request.input, event.step) } };
      case 'step-end':
        stepsWritten.push(event.step);
        return { ...event, step: compactStep(event.step) };
      case 'run-end':
        return { ...event, result: compactResult(event.result) };
      case 'run-pause': {
        const { state: _state, ...rest } = event;
        return rest;
      }
      default:
        return event;
    }
  };
}

/**
 * Reads lines written by {@link createTraceCompactor} back into the events they were (lines of format 1,
 * which have no references, pass unchanged). Lines must be given in order.
 *
 * @throws {Error} when a reference points to a model text the trace does not hold.
 */
export function createTraceExpander(): (line: Record<string, unknown>) => Record<string, unknown> {
  const ends = new Map<number, ModelEnd>();
  let runSteps: unknown[] = [];

  const resolve = (value: unknown): unknown => {
    if (!isTextRef(value)) return value;
    const text = ends.get(value.modelText)?.text;
    if (text === undefined) {
      throw new Error(`it refers to the model text of step ${value.modelText}, which no earlier line holds`);
    }
    return text.slice(value.from, value.to);
  };
  const resolveTurn = (turn: unknown) =>
    isObject(turn)
      ? Object.fromEntries(
          Object.entries(turn).map(([key, value]) => [
            key,
            Array.isArray(value) ? value.map(resolve) : resolve(value),
          ]),
        )
      : turn;

  return (line) => {
    switch (line.type) {
      case 'run-start':
        runSteps = [];
        return line;
      case 'model-end': {
        // The turn and reasoning refer to this line's own text.
        ends.set(Number(line.step), { text: String(line.text), turn: {} as Turn });
        const expanded = {
          ...line,
          turn: resolveTurn(line.turn),
          ...('reasoning' in line && { reasoning: resolve(line.reasoning) }),
        };
        ends.set(Number(line.step), expanded as unknown as ModelEnd);
        return expanded;
      }
      case 'invented-observation':
        return { ...line, droppedText: resolve(line.droppedText) };
      case 'tool-start':
      case 'tool-end':
        return { ...line, input: resolve(line.input) };
      case 'approval-start':
      case 'approval-end':
        return isObject(line.request)
          ? { ...line, request: { ...line.request, input: resolve(line.request.input) } }
          : line;
      case 'step-end': {
        if (!isObject(line.step)) return line;
        const step = { ...line.step };
        const end = ends.get(Number(step.index));
        if (end) {
          if (!('modelText' in step)) step.modelText = end.text;
          if (!('turn' in step)) step.turn = end.turn;
          if (!('reasoning' in step) && end.reasoning !== undefined) step.reasoning = end.reasoning;
        }
        if (step.reasoning === null) delete step.reasoning;
        step.transcriptText = resolve(step.transcriptText);
        if ('turn' in step) step.turn = resolveTurn(step.turn);
        if ('reasoning' in step) step.reasoning = resolve(step.reasoning);
        runSteps.push(step);
        return { ...line, step };
      }
      case 'run-end': {
        if (!isObject(line.result)) return line;
        const result = { ...line.result };
        if (!('steps' in result)) result.steps = [...runSteps];
        if ('answer' in result) result.answer = resolve(result.answer);
        if (Array.isArray(result.messages)) {
          result.messages = result.messages.map((message: unknown) =>
            isObject(message) ? { ...message, content: resolve(message.content) } : message,
          );
        }
        return { ...line, result };
      }
      default:
        return line;
    }
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTextRef(value: unknown): value is TextRef {
  return (
    isObject(value) &&
    typeof value.modelText === 'number' &&
    typeof value.from === 'number' &&
    typeof value.to === 'number'
  );
}
