/**
 * A run of the in-page model (`taoloop/browser`'s `browserModel`, served by the playground with wllama's
 * files): the loop runs in this page, and its events are rendered with the same trace view as a server
 * run. Only the read-only tools a page can run are offered (calculator; search over the documents the
 * server sends), so nothing asks for approval. The run is not saved on the server and has no address.
 */
export function createInPageRun({ ui, api, withToken, state, view, display, runs }) {
  /** Runs the loop in this page; `errorLine` shows a refusal. */
  async function start(body, errorLine) {
    if (refused(body, errorLine)) return;
    const controller = begin(body);
    let model;
    try {
      const lib = await import('/assets/browser/index.js');
      model = await loadModel(lib);
      const tools = await loadTools(lib, body.tools);
      view.setStatus('Running in this page…');
      const events = lib.streamAgent({
        model,
        tools,
        question: body.question.trim(),
        maxSteps: body.maxSteps,
        signal: controller.signal,
      });
      await showEvents(events, controller);
    } catch (error) {
      if (state.run.controller === controller)
        view.show({ type: 'run-error', error: String(error?.message ?? error) });
    } finally {
      await model?.dispose();
      if (state.run.controller === controller) {
        display.allowStart();
        display.setLive(false);
      }
    }
  }

  /** Whether the run asks for a tool the page cannot run (said on `errorLine`, the boxes marked). */
  function refused(body, errorLine) {
    const { tools } = state.inPage;
    const unsupported = body.tools.filter((name) => !tools.includes(name));
    if (unsupported.length)
      display.refuse(
        errorLine,
        `The in-page model runs only ${tools.join(' and ') || 'no tool'}: untick ${unsupported.join(', ')}, then Run again.`,
        unsupported,
      );
    return unsupported.length > 0;
  }

  /** Puts the new run on screen (no address, no download, no link) and returns what stops it. */
  function begin(body) {
    state.run.source?.close();
    const controller = new AbortController();
    display.begin({ id: '', source: undefined, options: body, live: false, answered: false, controller });
    // Named as the picker names it; it costs nothing (no price, no cost hint).
    view.setModel({ name: state.inPage.label, inPage: true });
    if (window.location.hash)
      history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
    ui.download.hidden = true;
    ui.permalink.hidden = true;
    ui.start.disabled = true;
    display.setLive(true);
    runs.markCurrent();
    state.focusOnEnd = true;
    ui.traceHeading.focus();
    view.setStatus('Loading the model in this page…');
    return controller;
  }

  /** The in-page model, downloaded (with its progress on the status line) and loaded. */
  function loadModel(lib) {
    return lib.browserModel({
      model: new URL(withToken(state.inPage.url), window.location.href).href,
      wasmUrl: new URL('/assets/wllama/wllama.wasm', window.location.href),
      onProgress: ({ loadedBytes, totalBytes }) => {
        view.setStatus(`Downloading the model: ${Math.round((100 * loadedBytes) / (totalBytes || 1))}%`);
      },
    });
  }

  /** The tools ticked, as the page runs them: search gets the server's documents. */
  async function loadTools(lib, names) {
    const tools = [];
    if (names.includes('calculator')) tools.push(lib.calculator);
    if (names.includes('search')) {
      const { documents } = await api('/api/browser-documents');
      tools.push(await lib.createSearchTool({ documents }));
    }
    return tools;
  }

  /** Renders the loop's events until it ends, or until another run takes the screen. */
  async function showEvents(events, controller) {
    for await (const event of events) {
      if (state.run.controller !== controller) break;
      if (event.type === 'reasoning-delta') continue;
      if (event.type === 'run-end') state.run.answered = event.result.status === 'answered';
      if (event.type === 'model-delta') {
        // The page shows what the loop says may be shown of a streaming reply (`shown`), as for a server
        // run: nothing of an observation the model invents.
        if (event.shown) view.show({ ...event, text: event.shown });
      } else view.show(event);
    }
  }

  return { start };
}
