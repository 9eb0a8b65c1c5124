/**
 * Two runs side by side, at `#/compare/<a>/<b>`: a table with a column per run, a row per step number
 * (the steps aligned by their number), each with its action or answer, its observation (folded when
 * long), tokens, cost and time, and the runs' totals above. Each run is followed over its event stream,
 * so two runs started together ("Run on both") fill in as they go. Every text is set as text; answers are
 * Markdown made by `markdown.js`.
 */
export function createCompare({ ui, el, withToken, markdown, state, onClose }) {
  /** An observation longer than this (in characters) is folded to its first line. */
  const LONG = 300;
  const COMPARE_HASH = /^#\/compare\/([A-Za-z0-9][A-Za-z0-9._-]*)\/([A-Za-z0-9][A-Za-z0-9._-]*)$/;
  /** The two runs on screen: id, event stream and what has arrived. */
  let runs = [];
  let scheduled = false;

  /** Shows runs `a` and `b` side by side, following each until it ends. */
  function open(a, b) {
    stopFollowing();
    runs = [a, b].map((id) => ({
      id,
      options: undefined,
      steps: new Map(),
      result: undefined,
      error: '',
      live: true,
      source: undefined,
    }));
    ui.main.classList.add('comparing', 'has-run');
    ui.compare.hidden = false;
    const hash = `#/compare/${a}/${b}`;
    if (window.location.hash !== hash) history.replaceState(null, '', `${window.location.search}${hash}`);
    ui.compareStatus.textContent = 'Loading the two runs…';
    for (const run of runs) run.source = follow(run);
    render();
    ui.compareHeading.focus();
  }

  /** The runs named by a `#/compare/<a>/<b>` address, or `undefined`. */
  function fromAddress(hash) {
    const match = COMPARE_HASH.exec(hash);
    return match ? [match[1], match[2]] : undefined;
  }

  function follow(run) {
    const source = new EventSource(withToken(`/api/runs/${encodeURIComponent(run.id)}/events`));
    source.addEventListener('message', (event) => onMessage(run, JSON.parse(event.data)));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED && run.live) {
        run.live = false;
        run.error ||= 'Lost the connection to the playground server.';
        schedule();
      }
    });
    return source;
  }

  function onMessage(run, message) {
    if (message.type === 'run-options') run.options = message;
    else if (message.type === 'run-start') run.start = message;
    else if (message.type === 'step-end') run.steps.set(message.step.index, message.step);
    else if (message.type === 'run-end') run.result = message.result;
    else if (message.type === 'run-error') run.error = message.error;
    else if (message.type === 'stream-end') {
      run.live = false;
      run.source?.close();
    } else return;
    schedule();
  }

  /** Renders once for the messages that arrive together (a replayed run sends all of its at once). */
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      render();
    }, 0);
  }

  function render() {
    if (ui.compare.hidden) return;
    const table = el('table', 'compare-table');
    table.append(el('caption', 'visually-hidden', 'Two runs side by side, step by step'));
    const head = el('thead');
    const headRow = el('tr');
    headRow.append(...runs.map(runHeader));
    head.append(headRow);
    table.append(head);
    table.append(rowGroup('Totals', runs.map(totals), 'totals'));
    const count = Math.max(0, ...runs.map((run) => Math.max(0, ...run.steps.keys())));
    for (let index = 1; index <= count; index += 1)
      table.append(
        rowGroup(
          `Step ${index}`,
          runs.map((run) => stepCell(run.steps.get(index), index)),
        ),
      );
    ui.compareBody.replaceChildren(table);
    const live = runs.filter((run) => run.live).length;
    ui.compareStatus.textContent = live
      ? `${live === 2 ? 'Both runs are' : 'One run is'} still running…`
      : `Both runs have ended: ${runs.map((run, i) => `run ${'AB'[i]} ${statusOf(run)}`).join(', ')}.`;
  }

  /** A column's header: which run, its model, its question, a link to open it alone. */
  function runHeader(run, i) {
    const th = el('th');
    th.scope = 'col';
    const model = run.options?.modelLabel || run.start?.modelId || '';
    th.append(el('span', 'kind', `Run ${'AB'[i]}${model ? ` · ${model}` : ''}`));
    const question = run.options?.question ?? run.start?.question ?? run.id;
    const open = el('a', undefined, question);
    open.href = `${window.location.search}#/runs/${run.id}`;
    th.append(open);
    const settings = [];
    if (run.options?.temperature !== undefined) settings.push(`temperature ${run.options.temperature}`);
    if (run.options?.instructions) settings.push('with instructions');
    if (settings.length) th.append(el('span', 'figs', settings.join(' · ')));
    return th;
  }

  /** A group of rows: its title across both columns, then a cell per run. */
  function rowGroup(title, cells, className) {
    const body = el('tbody', className);
    const titleRow = el('tr', 'step-row');
    const th = el('th', undefined, title);
    th.colSpan = 2;
    th.scope = 'rowgroup';
    titleRow.append(th);
    const row = el('tr', className);
    row.append(...cells);
    body.append(titleRow, row);
    return body;
  }

  function statusOf(run) {
    if (run.result) return run.result.status.replace('_', ' ');
    if (run.error) return 'failed';
    return run.live ? 'running' : 'ended';
  }

  /** A run's totals: status, steps, tokens, cost, time. */
  function totals(run) {
    const td = el('td');
    const result = run.result;
    const steps = result?.steps.length ?? run.steps.size;
    td.append(el('span', 'what', `${statusOf(run)} · ${steps === 1 ? '1 step' : `${steps} steps`}`));
    const usage = result?.usage ?? sumUsage(run);
    const cost = result?.costUsd ?? sumCost(run);
    const parts = [
      usage.inputTokens !== undefined || usage.outputTokens !== undefined
        ? `${count(usage.inputTokens)} in / ${count(usage.outputTokens)} out tokens`
        : 'tokens unknown',
      cost === undefined ? 'cost unknown' : `$${cost.toFixed(4)}`,
    ];
    if (result) parts.push(seconds(result.durationMs));
    td.append(el('span', 'figs', parts.join(' · ')));
    if (run.error) td.append(el('span', 'obs', run.error));
    return td;
  }

  function sumUsage(run) {
    const usage = {};
    for (const step of run.steps.values()) {
      if (step.usage?.inputTokens !== undefined)
        usage.inputTokens = (usage.inputTokens ?? 0) + step.usage.inputTokens;
      if (step.usage?.outputTokens !== undefined)
        usage.outputTokens = (usage.outputTokens ?? 0) + step.usage.outputTokens;
    }
    return usage;
  }

  function sumCost(run) {
    let cost;
    for (const step of run.steps.values()) if (step.costUsd !== undefined) cost = (cost ?? 0) + step.costUsd;
    return cost;
  }

  /** Step `index` of a run: its action or answer, its observation, its figures; or that it has none. */
  function stepCell(step, index) {
    const td = el('td');
    if (!step) {
      td.append(el('span', 'none', `No step ${index}`));
      return td;
    }
    const { turn } = step;
    if (turn.type === 'answer') {
      td.append(el('span', 'kind', 'Answer'), markdown.render(turn.text));
    } else if (turn.type === 'action') {
      td.append(el('span', 'kind', 'Action'), el('span', 'what', `${turn.tool}[${turn.input}]`));
    } else {
      td.append(el('span', 'kind', 'Format error'), el('span', 'what', step.modelText));
    }
    if (step.observation) td.append(observation(step.observation.text, index));
    td.append(el('span', 'figs', figures(step)));
    return td;
  }

  /** An observation; a long one folded to its first line and length. */
  function observation(text, index) {
    if (text.length <= LONG) {
      const short = el('span', 'obs');
      short.append(el('span', 'visually-hidden', 'Observation: '), document.createTextNode(text));
      return short;
    }
    const details = el('details', 'obs');
    const firstLine = text.split('\n').find((line) => line.trim() && line.trim() !== '[tool output]') ?? '';
    const summary = el(
      'summary',
      undefined,
      `Observation of step ${index}: ${firstLine.slice(0, 80)}… (${text.length.toLocaleString('en')} characters)`,
    );
    details.append(summary, el('span', undefined, text));
    return details;
  }

  function figures(step) {
    const usage = step.usage ?? {};
    const parts = [
      usage.inputTokens !== undefined || usage.outputTokens !== undefined
        ? `${count(usage.inputTokens)} in / ${count(usage.outputTokens)} out tokens`
        : 'tokens unknown',
    ];
    if (step.costUsd !== undefined) parts.push(`$${step.costUsd.toFixed(4)}`);
    parts.push(`model ${seconds(step.modelDurationMs)}`);
    if (step.observation?.durationMs !== undefined)
      parts.push(`tool ${seconds(step.observation.durationMs)}`);
    return parts.join(' · ');
  }

  function count(n) {
    return n === undefined ? '?' : n.toLocaleString('en');
  }

  function seconds(ms) {
    return ms === undefined ? '?' : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  }

  function stopFollowing() {
    for (const run of runs) run.source?.close();
  }

  /** Closes the comparison: the run on screen again (and its address). */
  function close() {
    stopFollowing();
    runs = [];
    ui.compare.hidden = true;
    ui.compareBody.replaceChildren();
    ui.main.classList.remove('comparing');
    const hash = state.run.id ? `#/runs/${state.run.id}` : '';
    history.replaceState(null, '', `${window.location.pathname}${window.location.search}${hash}`);
    onClose?.();
  }

  /** Whether the comparison is on screen. */
  function isOpen() {
    return !ui.compare.hidden;
  }

  ui.closeCompare.addEventListener('click', close);

  return { open, close, isOpen, fromAddress };
}
