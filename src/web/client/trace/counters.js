/** The run's counters (steps, tokens, cost) and each step's figures (model time, tool time, tokens). */
export function createCounters({ ui, state, seconds, count }) {
  function addTokens(usage) {
    const { run } = state;
    if (usage?.inputTokens !== undefined) run.inputTokens = (run.inputTokens ?? 0) + usage.inputTokens;
    if (usage?.outputTokens !== undefined) run.outputTokens = (run.outputTokens ?? 0) + usage.outputTokens;
    if (usage?.estimated) run.estimated = true;
  }

  function showCounts() {
    const { run } = state;
    ui.steps.textContent = String(run.steps);
    const known = run.inputTokens !== undefined || run.outputTokens !== undefined;
    ui.tokens.textContent = known
      ? `${run.estimated ? 'about ' : ''}${count((run.inputTokens ?? 0) + (run.outputTokens ?? 0))} (${count(run.inputTokens)} in, ${count(run.outputTokens)} out)`
      : 'unknown';
    // The in-page model runs on the reader's own machine: it costs nothing, so no price is asked for.
    ui.cost.textContent = run.inPage
      ? 'free, runs in this page'
      : run.costUsd === undefined
        ? 'unknown'
        : `$${run.costUsd.toFixed(4)}`;
    const why = !run.inPage && run.costUsd === undefined && known && run.ended;
    ui.costHelp.hidden = !why;
    if (why)
      ui.costHelp.textContent = `Cost unknown: taoloop has no price for ${run.modelName || run.modelId || 'this model'}. Start the playground with --price IN/OUT (US dollars per million input and output tokens), e.g. taoloop serve --price 0.15/0.60, to see the cost.`;
  }

  /** The step's figures: model time, tool time, input and output tokens. */
  function showFigures(g, step) {
    const parts = [`model ${seconds(step.modelDurationMs)}`];
    const toolMs = step.observation?.durationMs;
    if (toolMs !== undefined) parts.push(`tool ${seconds(toolMs)}`);
    const usage = step.usage ?? {};
    const about = usage.estimated ? 'about ' : '';
    if (usage.inputTokens !== undefined || usage.outputTokens !== undefined)
      parts.push(`${about}${count(usage.inputTokens)} in / ${count(usage.outputTokens)} out tokens`);
    else parts.push('tokens unknown');
    g.figures.textContent = parts.join(' · ');
  }

  return { addTokens, showCounts, showFigures };
}
