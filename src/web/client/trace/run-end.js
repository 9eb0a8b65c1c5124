/** The end of a run: its status, counts and time, or the failure; the text written so far stays. */
export function createRunEnd({ state, setStatus, steps, live, counters, hooks }) {
  const STOP_TEXT = {
    answered: 'Answered.',
    max_steps: 'No answer: the step limit was reached.',
    format_errors: 'No answer: the model kept writing turns that do not follow the format.',
    repeated_action: 'No answer: the model kept repeating the same action.',
    budget: 'No answer: the run hit its budget.',
    aborted: 'No answer: you stopped the run.',
    error: 'No answer: the run failed.',
    paused: 'Paused: the run waits for an approval.',
  };
  /** An abort's error, when it only repeats what the status says (the page's own Stop). */
  const SAID_BY_STATUS = /^The run was aborted(?:: stopped from the playground)?\.?$/;

  function showEnd(result) {
    const { run } = state;
    run.ended = true;
    live.markUnfinished();
    run.steps = result.steps.length;
    const { inputTokens, outputTokens } = result.usage;
    if (inputTokens !== undefined) run.inputTokens = inputTokens;
    if (outputTokens !== undefined) run.outputTokens = outputTokens;
    if (result.costUsd !== undefined) run.costUsd = result.costUsd;
    counters.showCounts();
    const why = STOP_TEXT[result.status] ?? result.status;
    const turns = result.steps.length === 1 ? '1 model turn' : `${result.steps.length} model turns`;
    const summary = `${turns} in ${(result.durationMs / 1000).toFixed(1)} s.`;
    const error = result.error && !SAID_BY_STATUS.test(result.error) ? ` ${result.error}` : '';
    const text = `${why}${error} ${summary}`;
    const end = steps.addBlock(`end ${result.status}`, `Run ended: ${result.status.replace('_', ' ')}`, text);
    end.tabIndex = -1;
    setStatus(text);
    hooks.onRunEnd(end);
  }

  /** The run could not start or crashed (`run-error`). */
  function showError(error) {
    state.run.ended = true;
    live.markUnfinished();
    steps.addBlock('error', 'The run failed', error);
    setStatus(`The run failed: ${error}`);
  }

  return { showEnd, showError };
}
