/**
 * The trace view of the playground page: turns the run's messages (the loop's events, sent by the server)
 * into numbered steps, each a group of blocks (Thought, Action, Observation, approval, answer) with its
 * model time, tool time and tokens, and an inspector showing what the model call was sent and what came
 * back. The text of a model turn grows as the model writes it (`model-delta`), and stays on screen when
 * the run stops or fails before the turn ends. It also keeps the counters and the run's timeline.
 *
 * Like `../main.js`, this runs in the browser and is served as its source text, so it uses nothing from
 * outside the function: the other parts of the view are factories in `parts` (see `page.ts`). All text
 * from the server is set with `textContent` or `value`, never as HTML.
 */
export function createTraceView(ui, hooks, parts) {
  /** The run on screen (a new one after `reset`). */
  const state = { run: newRun() };
  const helpers = parts.createTraceHelpers(ui);
  const { el, setStatus } = helpers;
  const markdown = parts.createMarkdown({ el });
  const steps = parts.createTraceSteps({ ui, state, ...helpers });
  const live = parts.createLiveText({ state, steps, ...helpers });
  const counters = parts.createCounters({ ui, state, ...helpers });
  const timeline = parts.createTimeline({ ui, state, ...helpers });
  const inspector = parts.createInspector({ state, ...helpers });
  const approvals = parts.createApprovals({ state, steps, hooks, ...helpers });
  const turns = parts.createTurns({
    state,
    steps,
    live,
    counters,
    timeline,
    inspector,
    markdown,
    ...helpers,
  });
  const ending = parts.createRunEnd({ state, steps, live, counters, hooks, ...helpers });
  const { show } = parts.createTraceEvents({
    ui,
    state,
    hooks,
    steps,
    live,
    turns,
    approvals,
    ending,
    ...helpers,
  });

  function newRun() {
    return {
      steps: 0,
      inputTokens: undefined,
      outputTokens: undefined,
      estimated: false,
      costUsd: undefined,
      approval: undefined,
      /** The error of the last retry of a model call (a retry after the same error says so). */
      retryError: undefined,
      modelId: '',
      /** How the page names the model (the picker's label); the model's id when it is not known. */
      modelName: '',
      /** Whether the model runs in this page (it costs nothing). */
      inPage: false,
      systemPrompt: '',
      /** Step number → its group (elements and what is known about it). */
      groups: new Map(),
      ended: false,
    };
  }

  /** Empties the view for another run. */
  function reset() {
    state.run = newRun();
    ui.trace.replaceChildren();
    if (ui.timeline) ui.timeline.replaceChildren();
    if (ui.timelineBox) ui.timelineBox.hidden = true;
    ui.runTitle.textContent = '';
    ui.runMeta.textContent = '';
    counters.showCounts();
  }

  /** The run's model: its name as the picker shows it, and whether it runs in this page. */
  function setModel({ name, inPage = false }) {
    state.run.modelName = name;
    state.run.inPage = inPage;
    counters.showCounts();
  }

  /** The steps that have ended, in order: each group (its `head`, `step`, ...). */
  function finishedSteps() {
    return [...state.run.groups.values()].filter((g) => g.step).sort((a, b) => a.step.index - b.step.index);
  }

  /** Adds a line under step `index`'s heading (e.g. that a fork replayed it). */
  function noteStep(index, text) {
    const g = state.run.groups.get(index);
    if (!g || g.head.querySelector('.replayed')) return;
    g.head.append(el('p', 'replayed', text));
  }

  return { el, setStatus, show, reset, setModel, finishedSteps, noteStep, markdown };
}
