/**
 * A run on the server, followed over its event stream. Each run has an address, `#/runs/<id>` (after the
 * page's own `?token=` when there is one): opening it, by a reload or a shared link, shows the run from
 * the start and follows it live while it runs.
 */
export function createServerRun({ ui, api, withToken, state, view, display, form, runs }) {
  /** Asks the server to start a run and opens it; `errorLine` shows a refusal. */
  async function start(body, errorLine) {
    ui.start.disabled = true;
    try {
      const { id } = await api('/api/runs', body);
      open(id);
      state.focusOnEnd = true;
      // Attention moves to the run: the trace heading, so screen readers and keyboards land there.
      ui.traceHeading.focus();
    } catch (error) {
      display.allowStart();
      display.refuse(errorLine, error.message);
    }
  }

  /** Shows run `id` from the start: live while it runs, replayed from its trace when it has ended. */
  function open(id) {
    state.run.source?.close();
    state.run.controller?.abort(new Error('another run was opened'));
    display.begin({ id, source: undefined, options: undefined, live: false, answered: false });
    const hash = `#/runs/${id}`;
    if (window.location.hash !== hash) history.replaceState(null, '', hash);
    view.setStatus('Loading the run…');
    ui.download.href = withToken(`/api/runs/${encodeURIComponent(id)}/trace.jsonl`);
    ui.download.hidden = false;
    ui.permalink.href = window.location.href;
    ui.permalink.hidden = false;
    display.setLive(true);
    runs.markCurrent();
    state.run.source = listen(id);
  }

  /** The event stream of run `id`, each message rendered as it comes. */
  function listen(id) {
    const source = new EventSource(withToken(`/api/runs/${encodeURIComponent(id)}/events`));
    source.addEventListener('message', (event) => onMessage(JSON.parse(event.data)));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        view.setStatus('Lost the connection to the playground server.');
        display.setLive(false);
      }
    });
    return source;
  }

  /** Renders one message; `stream-end` closes the stream. */
  function onMessage(message) {
    if (message.type === 'run-options') {
      showOptions(message);
      return;
    }
    if (message.type === 'run-end') state.run.answered = message.result.status === 'answered';
    if (message.type !== 'stream-end') {
      view.show(message);
      return;
    }
    state.run.source?.close();
    display.allowStart();
    display.setLive(false);
    runs.load();
  }

  /** The run's options (for "run again"), its conversation so far, and the form of a page opened on it. */
  function showOptions(message) {
    state.run.options = message;
    // One name for the model everywhere: the picker's label (from the server, which made the picker's).
    view.setModel({ name: message.modelLabel || message.model });
    display.showThread(message.thread ?? []);
    if (state.fillOnLoad && state.configLoaded) form.fill(message);
    state.fillOnLoad = state.fillOnLoad && !state.configLoaded;
  }

  /** Asks the server to stop the run on screen. */
  async function stop() {
    ui.stop.disabled = true;
    try {
      await api(`/api/runs/${encodeURIComponent(state.run.id)}/stop`, {});
    } catch (error) {
      view.setStatus(`Could not stop the run: ${error.message}`);
    }
  }

  /** Sends the decision on approval request `requestId` of the run on screen. */
  function decide(requestId, decision) {
    const run = encodeURIComponent(state.run.id);
    return api(`/api/runs/${run}/approvals/${encodeURIComponent(requestId)}`, decision);
  }

  return { start, open, stop, decide };
}
