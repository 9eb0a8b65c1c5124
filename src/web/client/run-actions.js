/**
 * What the user does with runs: Run (on the server, or in the page with the in-page model; on two models
 * at once with "Also run on"), Stop, run again, edit and run again, a follow-up question, save as test,
 * and the keys for them.
 */
export function createRunActions({ ui, state, form, display, serverRun, inPageRun }) {
  /** Starts a run; `errorLine` is the element whose text shows a refusal (see `display.refuse`). */
  async function start(body, errorLine = ui.formError) {
    display.clearRefusal(errorLine);
    if (!body.question.trim()) {
      display.refuse(errorLine, 'Type a question first.');
      return;
    }
    if (!body.tools.length) {
      display.refuse(errorLine, 'Tick at least one tool: the agent answers by calling tools.');
      return;
    }
    if (form.isInPage(body.model)) return inPageRun.start(body, errorLine);
    return serverRun.start(body, errorLine);
  }

  function startRun(event) {
    event.preventDefault();
    const body = form.options();
    const second = form.secondModel();
    if (!second) return start(body);
    display.clearRefusal(ui.formError);
    if (!body.question.trim()) return display.refuse(ui.formError, 'Type a question first.');
    if (!body.tools.length)
      return display.refuse(ui.formError, 'Tick at least one tool: the agent answers by calling tools.');
    if (form.isInPage(body.model))
      return display.refuse(
        ui.formError,
        'The in-page model runs alone: pick a model on the server to run on both, or no second model.',
      );
    return serverRun.startBoth(body, second, ui.formError);
  }

  async function stopRun() {
    const { run } = state;
    if (run.live && run.controller) {
      ui.stop.disabled = true;
      run.controller.abort(new Error('stopped from the playground'));
      return;
    }
    if (!run.live || !run.id) return;
    await serverRun.stop();
  }

  /** The run's question, model, tools and limits, for "run again". */
  function sameOptions() {
    const { question, model, tools, maxSteps, continueFrom, instructions, temperature } = state.run.options;
    return {
      question,
      model,
      tools,
      maxSteps,
      ...(continueFrom && { continueFrom }),
      ...(instructions && { instructions }),
      ...(temperature !== undefined && { temperature }),
    };
  }

  function editAgain() {
    form.fill(state.run.options);
    ui.question.focus();
    ui.question.scrollIntoView({ block: 'nearest' });
  }

  function askFollowUp(event) {
    event.preventDefault();
    const errorLine = ui.formError;
    const body = { ...sameOptions(), question: ui.followUp.value, continueFrom: state.run.id };
    ui.followUp.value = '';
    return start(body, errorLine);
  }

  /**
   * Ctrl+Enter (⌘+Enter) submits the form it is typed in, or the new-run form; Escape stops a run (unless a
   * dialog is open: there it closes the dialog).
   */
  function onKey(event) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      const typedIn = event.target.closest?.('form');
      if (typedIn === ui.followUpForm || typedIn === ui.forkForm) {
        event.preventDefault();
        typedIn.requestSubmit();
      } else if (typedIn === ui.runsFilter || document.querySelector('dialog[open]')) {
        // Nothing to run from the search, or from behind a dialog.
      } else if (!ui.start.disabled) {
        event.preventDefault();
        ui.form.requestSubmit();
      }
    } else if (event.key === 'Escape' && state.run.live && !document.querySelector('dialog[open]')) {
      // Escape in a dialog closes the dialog, and only that.
      event.preventDefault();
      stopRun();
    }
  }

  /** Wires the controls and keys of the page to these actions. */
  function listen() {
    ui.maxSteps.addEventListener('input', () => {
      ui.maxStepsValue.textContent = ui.maxSteps.value;
    });
    ui.temperature.addEventListener('input', () => {
      ui.temperatureValue.textContent = ui.temperature.value;
    });
    ui.secondModel.addEventListener('change', form.showStartLabel);
    ui.saveTest.addEventListener('click', serverRun.saveTest);
    ui.form.addEventListener('submit', startRun);
    ui.stop.addEventListener('click', stopRun);
    ui.runAgain.addEventListener('click', () => start(sameOptions()));
    ui.editAgain.addEventListener('click', editAgain);
    ui.followUpForm.addEventListener('submit', askFollowUp);
    document.addEventListener('keydown', onKey);
  }

  return { listen };
}
