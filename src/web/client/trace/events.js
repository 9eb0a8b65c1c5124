/** Which part of the trace view renders each message of the run's event stream. */
export function createTraceEvents({ ui, state, hooks, setStatus, steps, live, turns, approvals, ending }) {
  const handlers = {
    'run-start': showRunStart,
    'model-start': (message) => {
      steps.group(message.step);
      setStatus(`Step ${message.step}: the model is writing…`);
    },
    'model-request': (message) => {
      steps.group(message.step).request = message;
    },
    'model-delta': live.showDelta,
    'model-retry': turns.showRetry,
    'model-fallback': turns.showFallback,
    'model-end': turns.showTurn,
    'invented-observation': turns.showInvented,
    'approval-start': (message) => approvals.showRequest(message.request, message.step),
    'approval-pending': approvals.enable,
    'approval-end': (message) => approvals.showDecision(message.decision),
    'tool-start': (message) => setStatus(`Step ${message.step}: running ${message.tool}…`),
    'step-end': (message) => turns.showObservation(message.step),
    'run-end': (message) => ending.showEnd(message.result),
    'run-error': (message) => ending.showError(message.error),
    // The run goes on; only its trace file is lost.
    'trace-error': (message) => {
      steps.addBlock('error', 'The trace is not kept', message.error);
      setStatus(message.error);
    },
  };

  /** The run's question, model and tools, above its trace. */
  function showRunStart(message) {
    state.run.modelId = message.modelId;
    state.run.systemPrompt = message.systemPrompt ?? '';
    ui.runTitle.textContent = message.question;
    const model = state.run.modelName || message.modelId;
    ui.runMeta.textContent = `Model ${model} · tools: ${message.tools.join(', ') || 'none'}`;
    hooks.onRunStart?.(message);
  }

  /** Renders one message of the run's event stream; a type the view does not know is left out. */
  function show(message) {
    if (Object.hasOwn(handlers, message.type)) handlers[message.type](message);
  }

  return { show };
}
