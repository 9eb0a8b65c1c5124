/**
 * The playground page's script (vanilla browser JavaScript, no framework): the form, the past runs, and
 * the run on screen, rendered by the trace view (`trace/view.js`).
 *
 * It runs in the browser, not in Node: `page.ts` serves `(<this function's source>)({ <name>: <each
 * factory's source>, ... })` from `/app.js`, so every function of the script must be self-contained: it
 * uses what is defined inside it, its parameters and the browser's globals, never imports or names from
 * the rest of its module (the bundler may rename those). The parts are factories that this function is
 * given in `parts` and calls with what they need. Everything the server sends is written with
 * `textContent` (or `value`), never parsed as HTML: observations and answers are data, and may contain
 * markup.
 */
export function playgroundClient(parts) {
  const RUN_HASH = /^#\/runs\/([A-Za-z0-9][A-Za-z0-9._-]*)$/;
  const COMPARE_HASH = /^#\/compare\//;
  const state = {
    /** The run on screen: its id, event stream, options (for "run again") and whether it still runs. */
    run: { id: '', source: undefined, options: undefined, live: false, answered: false },
    /** Where focus goes when the run ends: set when the user started the run from this page. */
    focusOnEnd: false,
    /** A page opened on a run's address puts that run's options in the form, once both are known. */
    fillOnLoad: RUN_HASH.test(window.location.hash),
    configLoaded: false,
    /** The model the page runs itself (`taoloop serve --browser-model`): its label, GGUF URL and tools. */
    inPage: undefined,
  };
  const ui = parts.findPageElements();
  const { api, withToken } = parts.createApi();
  const view = parts.createTraceView(
    ui,
    {
      decide: (requestId, decision) => serverRun.decide(requestId, decision),
      onRunEnd: (endBlock) => display.onRunEnd(endBlock),
      onRunStart: (message) => display.showSystemPrompt(message.systemPrompt ?? ''),
    },
    parts,
  );
  const { el } = view;
  const display = parts.createRunDisplay({ ui, el, state, view });
  const form = parts.createConfigForm({ ui, el, api, state });
  const openRun = (id) => serverRun.open(id);
  const compare = parts.createCompare({
    ui,
    el,
    withToken,
    markdown: view.markdown,
    state,
    onClose: () => ui.traceHeading.focus(),
  });
  const runs = parts.createRunsList({ ui, el, api, state, openRun, compare });
  const fork = parts.createForkDialog({ ui, el, api, state, view, openRun });
  const runParts = { ui, api, withToken, state, view, display, runs };
  const serverRun = parts.createServerRun({ ...runParts, form, compare, fork });
  const inPageRun = parts.createInPageRun(runParts);
  parts.createRunActions({ ui, state, form, display, serverRun, inPageRun }).listen();

  /** Opens the run (or the two runs compared) named by the address, if any (a reload, a shared link, the back button). */
  function openFromAddress() {
    const { hash } = window.location;
    const pair = COMPARE_HASH.test(hash) ? compare.fromAddress(hash) : undefined;
    if (pair) return compare.open(pair[0], pair[1]);
    const match = RUN_HASH.exec(hash);
    if (match && (match[1] !== state.run.id || compare.isOpen())) serverRun.open(match[1]);
  }

  ui.refreshRuns.addEventListener('click', runs.load);
  runs.listen();
  window.addEventListener('hashchange', openFromAddress);
  form.load();
  openFromAddress();
  runs.load();
}
