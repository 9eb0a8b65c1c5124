/**
 * The frame around the trace view: which buttons the run area shows (Stop while a run runs, "run again"
 * and the follow-up form once it has ended), the earlier turns of its conversation, and where focus goes
 * when it ends.
 */
export function createRunDisplay({ ui, el, state, view }) {
  /** Shows whether a run is in progress: Stop while it runs, "run again" once it has ended. */
  function setLive(live) {
    const { run } = state;
    run.live = live;
    ui.stop.disabled = !live;
    ui.stop.hidden = !live;
    ui.runAgain.hidden = live || !run.options;
    ui.editAgain.hidden = live || !run.options;
    // A run that ended (with a result) on the server can become a regression test.
    ui.saveTest.hidden = live || !run.finished || !run.id || Boolean(run.controller);
    // An in-page run is not kept on the server, so there is no conversation to continue.
    ui.followUpForm.hidden = live || !run.answered || !run.options || Boolean(run.controller);
  }

  /** Puts `run` on screen in place of the one before: an empty trace, no earlier turns yet. */
  function begin(run) {
    state.run = run;
    view.reset();
    showThread([]);
    showSystemPrompt('');
    ui.savedTest.replaceChildren();
    ui.forkNote.hidden = true;
    ui.forkNote.replaceChildren();
    ui.main.classList.add('has-run');
  }

  /** The run's whole system prompt (from its `run-start`), folded under its title. */
  function showSystemPrompt(text) {
    ui.systemPrompt.textContent = text;
    ui.systemPromptBox.hidden = !text;
  }

  /** The earlier questions and answers of the conversation this run continues. */
  function showThread(thread) {
    ui.thread.replaceChildren(
      ...thread.map((turn) => {
        const item = el('li');
        const answer =
          turn.answer === undefined ? el('p', undefined, '(no answer)') : view.markdown.render(turn.answer);
        answer.classList.add('answered');
        item.append(el('p', 'asked', turn.question), answer);
        return item;
      }),
    );
    ui.thread.hidden = thread.length === 0;
  }

  /**
   * Says why a run did not start, where the user looks: on `errorLine` (an alert beside the Run button),
   * scrolled into view and focused, so that neither the eye nor a screen reader misses it. The tool boxes
   * named in `tools` are marked invalid and described by it.
   */
  function refuse(errorLine, text, tools = []) {
    errorLine.textContent = text;
    errorLine.tabIndex = -1;
    for (const name of tools) {
      const box = [...ui.tools.querySelectorAll('input[type="checkbox"]')].find((b) => b.value === name);
      box?.setAttribute('aria-invalid', 'true');
      box?.setAttribute('aria-describedby', errorLine.id);
    }
    errorLine.scrollIntoView({ block: 'nearest' });
    errorLine.focus({ preventScroll: true });
  }

  /** Clears a refusal: its text and the marks on the tool boxes. */
  function clearRefusal(errorLine) {
    errorLine.textContent = '';
    for (const box of ui.tools.querySelectorAll('input[aria-invalid]')) {
      box.removeAttribute('aria-invalid');
      box.removeAttribute('aria-describedby');
    }
  }

  /** The Run button works again once no run starts, unless there is no model to run. */
  function allowStart() {
    ui.start.disabled = ui.model.disabled;
  }

  /**
   * The trace view's end of a run: Stop goes, and focus moves to the end block when the user started the
   * run from this page, or when focus was in the run's section or on nothing.
   */
  function onRunEnd(endBlock) {
    ui.stop.disabled = true;
    ui.stop.hidden = true;
    if (
      state.focusOnEnd ||
      ui.run?.contains(document.activeElement) ||
      document.activeElement === document.body
    )
      endBlock.focus({ preventScroll: !ui.follow.checked });
    state.focusOnEnd = false;
  }

  return { setLive, begin, showThread, showSystemPrompt, refuse, clearRefusal, allowStart, onRunEnd };
}
