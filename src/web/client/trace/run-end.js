/**
 * The end of a run: its status, counts and time, or the failure; the text written so far stays. A failure
 * is said once, at the end of the trace (where focus goes), as a sentence, with what to do about it; the
 * status line above the trace says only how the run ended.
 */
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
  /** What to do after a run that ended this way, when the reader can do something. */
  const ADVICE = {
    error:
      "What to do: check that the model's server is running and that its URL (and API key, if it needs one) is right, or pick another model and run again.",
  };
  /** An abort's error, when it only repeats what the status says (the page's own Stop). */
  const SAID_BY_STATUS = /^The run was aborted(?:: stopped from the playground)?\.?$/;

  /** `text` as a sentence: trimmed, ending with a full stop (after a closing bracket too). */
  function sentence(text) {
    const trimmed = String(text).trim();
    return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
  }

  /** Takes away the steps that show nothing (a model call that failed before writing a word). */
  function dropEmptySteps() {
    for (const [index, g] of state.run.groups) {
      if (g.step || g.blocks.childElementCount > 0) continue;
      g.item.remove();
      state.run.groups.delete(index);
    }
  }

  function showEnd(result) {
    const { run } = state;
    run.ended = true;
    live.markUnfinished();
    dropEmptySteps();
    run.steps = result.steps.length;
    const { inputTokens, outputTokens } = result.usage;
    if (inputTokens !== undefined) run.inputTokens = inputTokens;
    if (outputTokens !== undefined) run.outputTokens = outputTokens;
    if (result.costUsd !== undefined) run.costUsd = result.costUsd;
    counters.showCounts();
    const why = STOP_TEXT[result.status] ?? result.status;
    const turns = result.steps.length === 1 ? '1 model turn' : `${result.steps.length} model turns`;
    const summary = `${turns} in ${(result.durationMs / 1000).toFixed(1)} s.`;
    const error = result.error && !SAID_BY_STATUS.test(result.error) ? sentence(result.error) : '';
    // What to do, when there is something to do, on a line of its own.
    const advice = ADVICE[result.status] ? `\n${ADVICE[result.status]}` : '';
    const text = `${[why, error].filter(Boolean).join(' ')}${advice} ${summary}`;
    const label = result.status === 'error' ? 'Run failed' : `Run ended: ${result.status.replace('_', ' ')}`;
    const end = steps.addBlock(`end ${result.status}`, label, text);
    end.tabIndex = -1;
    setStatus(`${why} ${summary}`);
    hooks.onRunEnd(end);
  }

  /** The run could not start or crashed (`run-error`). */
  function showError(error) {
    state.run.ended = true;
    live.markUnfinished();
    dropEmptySteps();
    const end = steps.addBlock('error', 'The run failed', sentence(error));
    end.tabIndex = -1;
    setStatus('The run failed: the reason is at the end of the trace.');
    hooks.onRunEnd(end);
  }

  return { showEnd, showError };
}
