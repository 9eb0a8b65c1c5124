/**
 * A step's model turn and what follows it: the parsed turn (Thought, then Action / Answer / the unusable
 * turn), retries and fallbacks of the model call, an observation the model invented (dropped), and the
 * observation the model sees next, with the step's figures, inspector and timeline.
 */
export function createTurns({ state, el, setStatus, seconds, steps, live, counters, timeline, inspector }) {
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
    if (turn.type === 'answer') steps.addBlock('answer', 'Answer', turn.text, step);
    if (turn.type === 'none')
      steps.addBlock('format-error', 'Format error: unusable model turn', message.text, step);
    counters.showCounts();
  }

  /** A retry is reported as it is sent (by the model's own retries), after its wait: said as the CLI says it. */
  function showRetry(message) {
    const of = message.maxRetries ? ` of ${message.maxRetries}` : '';
    steps.addBlock(
      'retry',
      `Retry ${message.retry}${of}`,
      `The model call failed: ${message.error}. Trying again (waited ${seconds(message.delayMs)}).`,
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
      const item = steps.addBlock(kind, label, observation.text, step.index);
      if (observation.fullText !== undefined)
        item.append(el('p', 'note', 'Shortened for the model; the full output is in the inspector.'));
    }
    g.step = step;
    counters.showFigures(g, step);
    inspector.fill(g, step);
    timeline.show();
    counters.showCounts();
  }

  return { showTurn, showRetry, showFallback, showInvented, showObservation };
}
