/**
 * A run on the server, followed over its event stream. Each run has an address, `#/runs/<id>` (after the
 * page's own `?token=` when there is one): opening it, by a reload or a shared link, shows the run from
 * the start and follows it live while it runs.
 */
export function createServerRun({ ui, api, withToken, state, view, display, form, runs, compare, fork }) {
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

  /**
   * "Run on both": the same request on the form's model and on `second`, shown side by side. When only one
   * of them starts, it is opened alone, and why the other did not is said on `errorLine`.
   */
  async function startBoth(body, second, errorLine) {
    ui.start.disabled = true;
    const [a, b] = await Promise.allSettled([
      api('/api/runs', body),
      api('/api/runs', { ...body, model: second }),
    ]);
    display.allowStart();
    if (a.status === 'fulfilled' && b.status === 'fulfilled') {
      compare.open(a.value.id, b.value.id);
      runs.load();
      return;
    }
    const started = a.status === 'fulfilled' ? a.value : b.status === 'fulfilled' ? b.value : undefined;
    const failed = [a, b].find((r) => r.status === 'rejected');
    if (started) open(started.id);
    display.refuse(errorLine, `${started ? 'Only one run started: ' : ''}${failed.reason.message}`);
  }

  /** Shows run `id` from the start: live while it runs, replayed from its trace when it has ended. */
  function open(id) {
    if (compare.isOpen()) compare.close();
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
    if (message.type === 'run-end') {
      state.run.answered = message.result.status === 'answered';
      state.run.finished = true;
    }
    if (message.type !== 'stream-end') {
      view.show(message);
      if (message.type === 'step-end') fork.markStep(state.run.options?.forkOf, message.step.index);
      return;
    }
    state.run.source?.close();
    display.allowStart();
    display.setLive(false);
    fork.addButtons();
    runs.load();
  }

  /** The run's options (for "run again"), its conversation so far, and the form of a page opened on it. */
  function showOptions(message) {
    state.run.options = message;
    // One name for the model everywhere: the picker's label (from the server, which made the picker's).
    view.setModel({ name: message.modelLabel || message.model });
    display.showThread(message.thread ?? []);
    fork.showOrigin(message.forkOf);
    if (state.fillOnLoad && state.configLoaded) form.fill(message);
    state.fillOnLoad = state.fillOnLoad && !state.configLoaded;
  }

  /** Writes the run on screen as a regression test for `taoloop test`, and says where and how to run it. */
  async function saveTest() {
    ui.saveTest.disabled = true;
    try {
      const saved = await api(`/api/runs/${encodeURIComponent(state.run.id)}/save-test`, {});
      const where = document.createElement('p');
      where.append(
        document.createTextNode(saved.existed ? 'Already saved as a test: ' : 'Saved as a test: '),
        codeText(saved.file),
      );
      const how = document.createElement('p');
      how.append(document.createTextNode('Run it with '), codeText(saved.command));
      ui.savedTest.replaceChildren(where, how);
    } catch (error) {
      ui.savedTest.textContent = `Could not save the test: ${error.message}`;
    } finally {
      ui.saveTest.disabled = false;
    }
  }

  function codeText(text) {
    const code = document.createElement('code');
    code.textContent = text;
    return code;
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

  return { start, startBoth, open, stop, decide, saveTest };
}
