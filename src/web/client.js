/**
 * The playground page's script (vanilla browser JavaScript, no framework): the form, the past runs, and
 * the event stream of the run on screen. `createTraceView` (client-trace.js) renders the run's messages.
 *
 * Each run has an address, `#/runs/<id>` (after the page's own `?token=` when there is one): opening it,
 * by a reload or a shared link, shows the run from the start and follows it live while it runs.
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
    main: byId('main'),
    form: byId('run-form'),
    question: byId('question'),
    model: byId('model'),
    modelHelp: byId('model-help'),
    tools: byId('tools'),
    maxSteps: byId('max-steps'),
    maxStepsValue: byId('max-steps-value'),
    start: byId('start'),
    stop: byId('stop'),
    runAgain: byId('run-again'),
    editAgain: byId('edit-again'),
    formError: byId('form-error'),
    runs: byId('runs'),
    refreshRuns: byId('refresh-runs'),
    traceHeading: byId('trace-heading'),
    thread: byId('thread'),
    runTitle: byId('run-title'),
    runMeta: byId('run-meta'),
    status: byId('status'),
    download: byId('download'),
    permalink: byId('permalink'),
    follow: byId('follow'),
    trace: byId('trace'),
    timeline: byId('timeline'),
    timelineBox: byId('timeline-box'),
    steps: byId('count-steps'),
    tokens: byId('count-tokens'),
    cost: byId('count-cost'),
    costHelp: byId('cost-help'),
    followUpForm: byId('follow-up-form'),
    followUp: byId('follow-up'),
  };
  /**
   * The access token from the page's own URL (`?token=...`, printed by `taoloop serve` on a non-loopback
   * host): sent with every API call, as a header where `fetch` is used, in the URL where it cannot be.
   */
  const token = new URLSearchParams(window.location.search).get('token') || '';
  const withToken = (path) => (token ? `${path}?token=${encodeURIComponent(token)}` : path);
  const authorization = token ? { authorization: `Bearer ${token}` } : {};
  const RUN_HASH = /^#\/runs\/([A-Za-z0-9][A-Za-z0-9._-]*)$/;
  /** The run on screen: its id, event stream, options (for "run again") and whether it still runs. */
  let run = { id: '', source: undefined, options: undefined, live: false, answered: false };
  /** Where focus goes when the run ends: set when the user started the run from this page. */
  let focusOnEnd = false;
  /** A page opened on a run's address puts that run's options in the form, once both are known. */
  let fillOnLoad = RUN_HASH.test(window.location.hash);
  let configLoaded = false;
  /** The model the page runs itself (`taoloop serve --browser-model`): its label, GGUF URL and tools. */
  let inPage;
  /** The model picker's value for the in-page model (never a server model spec). */
  const IN_PAGE = 'in-page';
  const view = createTraceView(ui, {
    decide: (requestId, decision) =>
      api(`/api/runs/${encodeURIComponent(run.id)}/approvals/${encodeURIComponent(requestId)}`, decision),
    onRunEnd: (endBlock) => {
      ui.stop.disabled = true;
      ui.stop.hidden = true;
      if (focusOnEnd || ui.run?.contains(document.activeElement) || document.activeElement === document.body)
        endBlock.focus({ preventScroll: !ui.follow.checked });
      focusOnEnd = false;
    },
  });
  const { el, setStatus } = view;
  ui.run = ui.trace.closest('section');

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

  /** Shows whether a run is in progress: Stop while it runs, "run again" once it has ended. */
  function setLive(live) {
    run.live = live;
    ui.stop.disabled = !live;
    ui.stop.hidden = !live;
    ui.runAgain.hidden = live || !run.options;
    ui.editAgain.hidden = live || !run.options;
    // An in-page run is not kept on the server, so there is no conversation to continue.
    ui.followUpForm.hidden = live || !run.answered || !run.options || Boolean(run.controller);
  }

  /** Renders one message; `stream-end` closes the stream. */
  function onMessage(message) {
    if (message.type === 'run-options') {
      run.options = message;
      showThread(message.thread ?? []);
      if (fillOnLoad && configLoaded) fillForm(message);
      fillOnLoad = fillOnLoad && !configLoaded;
      return;
    }
    if (message.type === 'run-end') run.answered = message.result.status === 'answered';
    if (message.type !== 'stream-end') {
      view.show(message);
      return;
    }
    run.source?.close();
    ui.start.disabled = ui.model.disabled;
    setLive(false);
    loadRuns();
  }

  /** The earlier questions and answers of the conversation this run continues. */
  function showThread(thread) {
    ui.thread.replaceChildren(
      ...thread.map((turn) => {
        const item = el('li');
        item.append(el('p', 'asked', turn.question), el('p', 'answered', turn.answer ?? '(no answer)'));
        return item;
      }),
    );
    ui.thread.hidden = thread.length === 0;
  }

  /** Shows run `id` from the start: live while it runs, replayed from its trace when it has ended. */
  function openRun(id) {
    run.source?.close();
    run.controller?.abort(new Error('another run was opened'));
    run = { id, source: undefined, options: undefined, live: false, answered: false };
    view.reset();
    showThread([]);
    ui.main.classList.add('has-run');
    const hash = `#/runs/${id}`;
    if (window.location.hash !== hash) history.replaceState(null, '', hash);
    setStatus('Loading the run…');
    ui.download.href = withToken(`/api/runs/${encodeURIComponent(id)}/trace.jsonl`);
    ui.download.hidden = false;
    ui.permalink.href = window.location.href;
    ui.permalink.hidden = false;
    setLive(true);
    markCurrent();
    const source = new EventSource(withToken(`/api/runs/${encodeURIComponent(id)}/events`));
    source.addEventListener('message', (event) => onMessage(JSON.parse(event.data)));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        setStatus('Lost the connection to the playground server.');
        setLive(false);
      }
    });
    run.source = source;
  }

  /**
   * Runs the loop in this page with the in-page model (`taoloop/browser`'s `browserModel`, served by the
   * playground with wllama's files), and renders its events with the same trace view as a server run. Only
   * the read-only tools a page can run are offered (calculator; search over the documents the server
   * sends), so nothing asks for approval. The run is not saved on the server and has no address.
   */
  async function runInPage(body, errorLine) {
    const unsupported = body.tools.filter((name) => !inPage.tools.includes(name));
    if (unsupported.length) {
      errorLine.textContent = `The in-page model runs only ${inPage.tools.join(' and ') || 'no tool'}: untick ${unsupported.join(', ')}.`;
      return;
    }
    run.source?.close();
    const controller = new AbortController();
    run = { id: '', source: undefined, options: body, live: false, answered: false, controller };
    view.reset();
    showThread([]);
    ui.main.classList.add('has-run');
    if (window.location.hash)
      history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
    ui.download.hidden = true;
    ui.permalink.hidden = true;
    ui.start.disabled = true;
    setLive(true);
    markCurrent();
    focusOnEnd = true;
    ui.traceHeading.focus();
    setStatus('Loading the model in this page…');
    let model;
    try {
      const lib = await import('/assets/browser/index.js');
      model = await lib.browserModel({
        model: new URL(withToken(inPage.url), window.location.href).href,
        wasmUrl: new URL('/assets/wllama/wllama.wasm', window.location.href),
        onProgress: ({ loadedBytes, totalBytes }) => {
          setStatus(`Downloading the model: ${Math.round((100 * loadedBytes) / (totalBytes || 1))}%`);
        },
      });
      const tools = [];
      if (body.tools.includes('calculator')) tools.push(lib.calculator);
      if (body.tools.includes('search')) {
        const { documents } = await api('/api/browser-documents');
        tools.push(await lib.createSearchTool({ documents }));
      }
      setStatus('Running in this page…');
      const events = lib.streamAgent({
        model,
        tools,
        question: body.question.trim(),
        maxSteps: body.maxSteps,
        signal: controller.signal,
      });
      for await (const event of events) {
        if (run.controller !== controller) break;
        if (event.type === 'reasoning-delta') continue;
        if (event.type === 'run-end') run.answered = event.result.status === 'answered';
        view.show(event);
      }
    } catch (error) {
      if (run.controller === controller)
        view.show({ type: 'run-error', error: String(error?.message ?? error) });
    } finally {
      await model?.dispose();
      if (run.controller === controller) {
        ui.start.disabled = ui.model.disabled;
        setLive(false);
      }
    }
  }

  /** The form's choices as a run request. */
  function formOptions() {
    const tools = [...ui.tools.querySelectorAll('input[type="checkbox"]:checked')].map((box) => box.value);
    return { question: ui.question.value, model: ui.model.value, tools, maxSteps: Number(ui.maxSteps.value) };
  }

  /** Starts a run; `where` is the element whose error line shows a refusal. */
  async function start(body, errorLine = ui.formError) {
    errorLine.textContent = '';
    if (!body.question.trim()) {
      errorLine.textContent = 'Type a question first.';
      return;
    }
    if (!body.tools.length) {
      errorLine.textContent = 'Tick at least one tool: the agent answers by calling tools.';
      ui.tools.querySelector('input')?.focus();
      return;
    }
    if (body.model === IN_PAGE) return runInPage(body, errorLine);
    ui.start.disabled = true;
    try {
      const { id } = await api('/api/runs', body);
      openRun(id);
      focusOnEnd = true;
      // Attention moves to the run: the trace heading, so screen readers and keyboards land there.
      ui.traceHeading.focus();
    } catch (error) {
      errorLine.textContent = error.message;
      ui.start.disabled = ui.model.disabled;
    }
  }

  function startRun(event) {
    event.preventDefault();
    return start(formOptions());
  }

  async function stopRun() {
    if (run.live && run.controller) {
      ui.stop.disabled = true;
      run.controller.abort(new Error('stopped from the playground'));
      return;
    }
    if (!run.live || !run.id) return;
    ui.stop.disabled = true;
    try {
      await api(`/api/runs/${encodeURIComponent(run.id)}/stop`, {});
    } catch (error) {
      setStatus(`Could not stop the run: ${error.message}`);
    }
  }

  /** The run's question, model, tools and limits, for "run again". */
  function sameOptions() {
    const { question, model, tools, maxSteps, continueFrom } = run.options;
    return { question, model, tools, maxSteps, ...(continueFrom && { continueFrom }) };
  }

  /** Puts the run's options in the form, for "edit and run again" (and a reloaded page). */
  function fillForm(options) {
    ui.question.value = options.question;
    if ([...ui.model.options].some((option) => option.value === options.model))
      ui.model.value = options.model;
    for (const box of ui.tools.querySelectorAll('input[type="checkbox"]'))
      box.checked = options.tools.includes(box.value);
    if (options.maxSteps) ui.maxSteps.value = String(options.maxSteps);
    ui.maxStepsValue.textContent = ui.maxSteps.value;
  }

  function askFollowUp(event) {
    event.preventDefault();
    const errorLine = ui.formError;
    const body = { ...sameOptions(), question: ui.followUp.value, continueFrom: run.id };
    ui.followUp.value = '';
    return start(body, errorLine);
  }

  /** Marks the run on screen in the past runs list. */
  function markCurrent() {
    for (const item of ui.runs.querySelectorAll('li[data-id]'))
      item.setAttribute('aria-current', String(item.dataset.id === run.id));
  }

  async function loadRuns() {
    try {
      const { runs } = await api('/api/runs');
      const items = runs.map((past) => {
        const item = el('li');
        item.dataset.id = past.id;
        const open = el('a', 'run-link', past.question || `(${past.status} trace ${past.id})`);
        open.href = `${window.location.search}#/runs/${past.id}`;
        // The run already on screen is shown again from the start (the address does not change).
        open.addEventListener('click', (event) => {
          if (window.location.hash !== `#/runs/${past.id}`) return;
          event.preventDefault();
          openRun(past.id);
        });
        const when = new Date(past.startedAt).toLocaleString('en');
        const tokens = past.tokens === undefined ? '' : ` · ${past.tokens.toLocaleString('en')} tokens`;
        const turns = past.steps === 1 ? '1 turn' : `${past.steps} turns`;
        item.append(
          open,
          el('span', 'meta', `${when} · ${past.modelId} · ${past.status} · ${turns}${tokens}`),
        );
        return item;
      });
      ui.runs.replaceChildren(...(items.length ? items : [el('li', 'meta', 'No runs yet.')]));
      markCurrent();
    } catch (error) {
      ui.runs.replaceChildren(el('li', 'meta', `Could not list past runs: ${error.message}`));
    }
  }

  function showConfig(config) {
    ui.model.replaceChildren(
      ...config.models.map((model) => {
        const option = el('option', undefined, model.label);
        option.value = model.spec;
        option.title = model.spec;
        return option;
      }),
    );
    inPage = config.browserModel;
    if (inPage) {
      const option = el('option', undefined, inPage.label);
      option.value = IN_PAGE;
      option.title = 'The model runs in this page (WebAssembly), with the calculator and search.';
      ui.model.append(option);
    }
    if (!config.models.length && !inPage) {
      ui.model.append(el('option', undefined, 'No model configured'));
      ui.model.disabled = true;
      ui.start.disabled = true;
      ui.modelHelp.textContent = config.modelHelp ?? '';
      ui.modelHelp.hidden = false;
    } else if (config.modelNote) {
      ui.modelHelp.textContent = config.modelNote;
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

  /** Opens the run named by the address, if any (a reload, a shared link, the back button). */
  function openFromAddress() {
    const match = RUN_HASH.exec(window.location.hash);
    if (match && match[1] !== run.id) openRun(match[1]);
  }

  ui.maxSteps.addEventListener('input', () => {
    ui.maxStepsValue.textContent = ui.maxSteps.value;
  });
  ui.form.addEventListener('submit', startRun);
  ui.stop.addEventListener('click', stopRun);
  ui.runAgain.addEventListener('click', () => start(sameOptions()));
  ui.editAgain.addEventListener('click', () => {
    fillForm(run.options);
    ui.question.focus();
    ui.question.scrollIntoView({ block: 'nearest' });
  });
  ui.followUpForm.addEventListener('submit', askFollowUp);
  ui.refreshRuns.addEventListener('click', loadRuns);
  window.addEventListener('hashchange', openFromAddress);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      const form = event.target.closest?.('form');
      if (form === ui.followUpForm) {
        event.preventDefault();
        ui.followUpForm.requestSubmit();
      } else if (!ui.start.disabled) {
        event.preventDefault();
        ui.form.requestSubmit();
      }
    } else if (event.key === 'Escape' && run.live) {
      event.preventDefault();
      stopRun();
    }
  });
  api('/api/config')
    .then((config) => {
      showConfig(config);
      configLoaded = true;
      // A reloaded or shared run puts its question, model, tools and limits back in the form.
      if (fillOnLoad && run.options) {
        fillForm(run.options);
        fillOnLoad = false;
      }
    })
    .catch((error) => {
      ui.formError.textContent = `Could not load the configuration: ${error.message}`;
    });
  openFromAddress();
  loadRuns();
}
