/**
 * The playground page's script (vanilla browser JavaScript, no framework): the form, the past runs, and
 * the event stream of the run on screen. `createTraceView` (client-trace.js) renders the run's messages.
 *
 * It runs in the browser, not in Node: `page.ts` serves `(<this function's source>)(<createTraceView's
 * source>)` from `/app.js`, so everything it uses must be defined inside this function or passed in: no
 * imports and no names from the rest of the module. Everything the server sends is written with
 * `textContent` (or `value`), never parsed as HTML: observations and answers are data, and may contain
 * markup.
 */
export function playgroundClient(createTraceView) {
  const byId = (id) => document.getElementById(id);
  const ui = {
    form: byId('run-form'),
    question: byId('question'),
    model: byId('model'),
    modelHelp: byId('model-help'),
    tools: byId('tools'),
    maxSteps: byId('max-steps'),
    maxStepsValue: byId('max-steps-value'),
    start: byId('start'),
    stop: byId('stop'),
    formError: byId('form-error'),
    runs: byId('runs'),
    refreshRuns: byId('refresh-runs'),
    runTitle: byId('run-title'),
    runMeta: byId('run-meta'),
    status: byId('status'),
    download: byId('download'),
    trace: byId('trace'),
    steps: byId('count-steps'),
    tokens: byId('count-tokens'),
    cost: byId('count-cost'),
  };
  /**
   * The access token from the page's own URL (`?token=...`, printed by `taoloop serve` on a non-loopback
   * host): sent with every API call, as a header where `fetch` is used, in the URL where it cannot be.
   */
  const token = new URLSearchParams(window.location.search).get('token') || '';
  const withToken = (path) => (token ? `${path}?token=${encodeURIComponent(token)}` : path);
  const authorization = token ? { authorization: `Bearer ${token}` } : {};
  /** The run on screen and its event stream. */
  let run = { id: '', source: undefined };
  const view = createTraceView(ui, {
    decide: (requestId, decision) =>
      api(`/api/runs/${encodeURIComponent(run.id)}/approvals/${encodeURIComponent(requestId)}`, decision),
    onRunEnd: () => {
      ui.stop.disabled = true;
    },
  });
  const { el, setStatus } = view;

  /** Calls the server's JSON API; a POST when `body` is given. Throws with the server's error message. */
  async function api(path, body) {
    const init =
      body === undefined
        ? { headers: authorization }
        : {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...authorization },
            body: JSON.stringify(body),
          };
    const response = await fetch(path, init);
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
    return data;
  }

  /** Renders one message; `stream-end` closes the stream. */
  function onMessage(message) {
    if (message.type !== 'stream-end') {
      view.show(message);
      return;
    }
    run.source?.close();
    ui.start.disabled = ui.model.disabled;
    ui.stop.disabled = true;
    loadRuns();
  }

  /** Shows run `id` from the start: live while it runs, replayed from its trace when it has ended. */
  function openRun(id) {
    run.source?.close();
    run = { id, source: undefined };
    view.reset();
    setStatus('Loading the run…');
    ui.download.href = withToken(`/api/runs/${encodeURIComponent(id)}/trace.jsonl`);
    ui.download.hidden = false;
    ui.stop.disabled = false;
    const source = new EventSource(withToken(`/api/runs/${encodeURIComponent(id)}/events`));
    source.addEventListener('message', (event) => onMessage(JSON.parse(event.data)));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED)
        setStatus('Lost the connection to the playground server.');
    });
    run.source = source;
  }

  async function startRun(event) {
    event.preventDefault();
    ui.formError.textContent = '';
    const tools = [...ui.tools.querySelectorAll('input[type="checkbox"]:checked')].map((box) => box.value);
    const body = {
      question: ui.question.value,
      model: ui.model.value,
      tools,
      maxSteps: Number(ui.maxSteps.value),
    };
    ui.start.disabled = true;
    try {
      const { id } = await api('/api/runs', body);
      openRun(id);
    } catch (error) {
      ui.formError.textContent = error.message;
      ui.start.disabled = false;
    }
  }

  async function stopRun() {
    ui.stop.disabled = true;
    try {
      await api(`/api/runs/${encodeURIComponent(run.id)}/stop`, {});
    } catch (error) {
      setStatus(`Could not stop the run: ${error.message}`);
    }
  }

  async function loadRuns() {
    try {
      const { runs } = await api('/api/runs');
      const items = runs.map((past) => {
        const item = el('li');
        const open = el('button', 'run-link', past.question || `(${past.status} trace ${past.id})`);
        open.type = 'button';
        open.addEventListener('click', () => openRun(past.id));
        const when = new Date(past.startedAt).toLocaleString('en');
        const tokens = past.tokens === undefined ? '' : ` · ${past.tokens} tokens`;
        item.append(
          open,
          el('span', 'meta', `${when} · ${past.modelId} · ${past.status} · ${past.steps} turns${tokens}`),
        );
        return item;
      });
      ui.runs.replaceChildren(...(items.length ? items : [el('li', 'meta', 'No runs yet.')]));
    } catch (error) {
      ui.runs.replaceChildren(el('li', 'meta', `Could not list past runs: ${error.message}`));
    }
  }

  function showConfig(config) {
    ui.model.replaceChildren(...config.models.map((spec) => el('option', undefined, spec)));
    if (!config.models.length) {
      ui.model.append(el('option', undefined, 'No model configured'));
      ui.model.disabled = true;
      ui.start.disabled = true;
      ui.modelHelp.textContent = config.modelHelp ?? '';
      ui.modelHelp.hidden = false;
    }
    ui.tools.replaceChildren(el('legend', undefined, 'Tools'));
    for (const tool of config.tools) {
      const box = el('input');
      box.type = 'checkbox';
      box.value = tool.name;
      box.checked = true;
      box.id = `tool-${tool.name}`;
      const label = el('label', 'tool-name', tool.name);
      label.htmlFor = box.id;
      const row = el('div', 'tool');
      row.append(box, label);
      if (tool.needsApproval) row.append(el('span', 'badge', `${tool.effects}: asks first`));
      row.append(el('p', 'tool-description', tool.description));
      ui.tools.append(row);
    }
    ui.maxSteps.min = String(config.maxSteps.min);
    ui.maxSteps.max = String(config.maxSteps.max);
    ui.maxSteps.value = String(config.maxSteps.default);
    ui.maxStepsValue.textContent = ui.maxSteps.value;
  }

  ui.maxSteps.addEventListener('input', () => {
    ui.maxStepsValue.textContent = ui.maxSteps.value;
  });
  ui.form.addEventListener('submit', startRun);
  ui.stop.addEventListener('click', stopRun);
  ui.refreshRuns.addEventListener('click', loadRuns);
  api('/api/config')
    .then(showConfig)
    .catch((error) => {
      ui.formError.textContent = `Could not load the configuration: ${error.message}`;
    });
  loadRuns();
}
