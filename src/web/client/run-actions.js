/**
 * What the user does with runs: Run (on the server, or in the page with the in-page model), Stop, run
 * again, edit and run again, a follow-up question, and the keys for them.
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
    return start(form.options());
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
    const { question, model, tools, maxSteps, continueFrom } = state.run.options;
    return { question, model, tools, maxSteps, ...(continueFrom && { continueFrom }) };
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

  /** Ctrl+Enter (⌘+Enter) submits the form it is typed in, or the new-run form; Escape stops a run. */
  function onKey(event) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      const typedIn = event.target.closest?.('form');
      if (typedIn === ui.followUpForm) {
        event.preventDefault();
        ui.followUpForm.requestSubmit();
      } else if (!ui.start.disabled) {
        event.preventDefault();
        ui.form.requestSubmit();
      }
    } else if (event.key === 'Escape' && state.run.live) {
      event.preventDefault();
      stopRun();
    }
  }

  /** Wires the controls and keys of the page to these actions. */
  function listen() {
    ui.maxSteps.addEventListener('input', () => {
      ui.maxStepsValue.textContent = ui.maxSteps.value;
    });
    ui.form.addEventListener('submit', startRun);
    ui.stop.addEventListener('click', stopRun);
    ui.runAgain.addEventListener('click', () => start(sameOptions()));
    ui.editAgain.addEventListener('click', editAgain);
    ui.followUpForm.addEventListener('submit', askFollowUp);
    document.addEventListener('keydown', onKey);
  }

  return { listen };
}
