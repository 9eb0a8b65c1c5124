/**
 * A step's model turn and what follows it: the parsed turn (Thought, then Action / Answer as Markdown /
 * the unusable turn), retries and fallbacks of the model call, an observation the model invented (dropped), and the
 * observation the model sees next, with the step's figures, inspector and timeline.
 */
export function createTurns({
  state,
  el,
  setStatus,
  seconds,
  steps,
  live,
  counters,
  timeline,
  inspector,
  markdown,
}) {
  /** Observations longer than this (in characters) are shown folded: their first line and their length. */
  const LONG_OBSERVATION = 600;
  /** How much of the first line a folded observation shows. */
  const FIRST_LINE = 120;

  /** Thought, then Action / Answer / the unusable turn, as the model wrote them. */
  function showTurn(message) {
    const { turn, step } = message;
    const g = steps.group(step);
    live.clearLive(g);
    g.text = message.text;
    g.turn = turn;
    counters.addTokens(message.usage);
    if (turn.thought) steps.addBlock('thought', 'Thought', turn.thought, step);
    if (turn.type === 'action') steps.addBlock('action', 'Action', `${turn.tool}[${turn.input}]`, step);
    if (turn.type === 'answer') {
      // Markdown, made into elements by `markdown.js` (never parsed as HTML).
      const answer = markdown.render(turn.text);
      answer.classList.add('text');
      steps.addBlock('answer', 'Answer', undefined, step).append(answer);
    }
    if (turn.type === 'none')
      steps.addBlock('format-error', 'Format error: unusable model turn', message.text, step);
    counters.showCounts();
  }

  /** A retry is reported as it is sent (by the model's own retries), after its wait: said as the CLI says it. */
  function showRetry(message) {
    const of = message.maxRetries ? ` of ${message.maxRetries}` : '';
    // An error is said once: a retry after the same error says so instead of repeating it.
    const same = state.run.retryError === message.error;
    state.run.retryError = message.error;
    const why = same
      ? 'The model call failed again, with the same error.'
      : `The model call failed: ${message.error}.`;
    steps.addBlock(
      'retry',
      `Retry ${message.retry}${of}`,
      `${why} Trying again (waited ${seconds(message.delayMs)}).`,
      message.step,
    );
    setStatus(`Step ${message.step}: retry ${message.retry}${of} after ${message.error}.`);
  }

  function showFallback(message) {
    const g = steps.group(message.step);
    live.clearLive(g);
    g.text = '';
    steps.addBlock(
      'retry',
      'Fallback',
      `${message.fromModelId} failed (${message.error}); ${message.toModelId} takes over.`,
      message.step,
    );
  }

  function showInvented(message) {
    steps.group(message.step).dropped = message.droppedText;
    steps.addBlock(
      'dropped',
      'Dropped: an Observation the model wrote itself (not used)',
      message.droppedText,
      message.step,
    );
  }

  /** The observation the model sees next (a tool's output, a rejection, or the format hint). */
  function showObservation(step) {
    const { run } = state;
    run.steps += 1;
    if (step.costUsd !== undefined) run.costUsd = (run.costUsd ?? 0) + step.costUsd;
    const g = steps.group(step.index);
    const observation = step.observation;
    if (observation) {
      const formatError = observation.source === 'format-error';
      const kind = formatError ? 'observation format-hint' : `observation${observation.ok ? '' : ' failed'}`;
      const label = formatError ? 'Observation (format hint sent to the model)' : 'Observation';
      const long = observation.text.length > LONG_OBSERVATION;
      const item = steps.addBlock(kind, label, long ? undefined : observation.text, step.index);
      if (long) item.append(folded(observation.text));
      if (observation.fullText !== undefined)
        item.append(el('p', 'note', 'Shortened for the model; the full output is in the inspector.'));
    }
    g.step = step;
    counters.showFigures(g, step);
    inspector.fill(g, step);
    timeline.show();
    counters.showCounts();
  }

  /** A long text, folded: a summary with its first line and its length, the whole text when opened. */
  function folded(text) {
    const details = el('details', 'folded');
    // The first line that says something: not the marker the loop wraps multi-line output in.
    const firstLine = text.split('\n').find((line) => line.trim() && line.trim() !== '[tool output]') ?? '';
    const start = firstLine.length > FIRST_LINE ? `${firstLine.slice(0, FIRST_LINE)}…` : firstLine;
    const summary = el('summary');
    summary.append(
      el('span', 'first-line', start),
      el('span', 'length', ` (${text.length.toLocaleString('en')} characters)`),
    );
    details.append(summary, el('div', 'text', text));
    return details;
  }

  return { showTurn, showRetry, showFallback, showInvented, showObservation };
}
