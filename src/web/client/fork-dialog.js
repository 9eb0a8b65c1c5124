/**
 * "Fork from here": on a run of this playground that has ended, each step gets a button that opens a
 * dialog with the step's model turn and, for an action, its observation, both editable. The fork runs the
 * same question with the same model, tools and settings: the steps before replayed as recorded (no model
 * call, no tool run), this step as written in the dialog (an observation written there is the tool's
 * output: the tool does not run), then the live model (`POST /api/runs/:id/fork`).
 */
export function createForkDialog({ ui, el, api, state, view, openRun }) {
  /** The step the dialog forks from, and whether its observation is offered. */
  let forking;

  /** Adds "Fork from here" to each finished step of the run on screen, when it can be forked. */
  function addButtons() {
    const { run } = state;
    // Only a run of this playground (it has its options) on the server (not the in-page model) can be forked.
    if (!run.id || run.controller || !run.options?.model) return;
    for (const g of view.finishedSteps()) {
      if (g.head.querySelector('.step-actions')) continue;
      const actions = el('div', 'step-actions');
      const button = el('button', 'fork', 'Fork from here');
      button.type = 'button';
      button.setAttribute('aria-label', `Fork from here (step ${g.step.index})`);
      button.addEventListener('click', () => show(g.step));
      actions.append(button);
      g.head.append(actions);
    }
  }

  /** Opens the dialog on `step`: its turn, and its observation when it acted. */
  function show(step) {
    const index = step.index;
    const acted = step.turn.type === 'action' && step.observation !== undefined;
    forking = { index, acted };
    ui.forkTitle.textContent = `Fork from step ${index}`;
    ui.forkHelp.textContent =
      index > 1
        ? `${index === 2 ? 'Step 1 is' : `Steps 1 to ${index - 1} are`} replayed as recorded: no model call, and no tool runs. Step ${index} is what you write here; then the model goes on, with the same model, tools and settings.`
        : 'Step 1 is what you write here; then the model goes on, with the same model, tools and settings.';
    ui.forkTurnLabel.textContent = `Turn at step ${index} (Thought, then Action or Answer)`;
    ui.forkTurn.value = step.modelText;
    ui.forkObservationBox.hidden = !acted;
    ui.forkObservation.value = acted ? step.observation.text : '';
    ui.forkObservationLabel.textContent = `Observation of step ${index} (you play the tool)`;
    ui.forkError.textContent = '';
    ui.forkStart.disabled = false;
    ui.forkDialog.showModal();
    (acted ? ui.forkObservation : ui.forkTurn).focus();
  }

  async function submit(event) {
    event.preventDefault();
    if (!forking) return;
    const body = {
      step: forking.index,
      turn: ui.forkTurn.value,
      ...(forking.acted && { observation: ui.forkObservation.value }),
    };
    ui.forkStart.disabled = true;
    ui.forkError.textContent = '';
    try {
      const { id } = await api(`/api/runs/${encodeURIComponent(state.run.id)}/fork`, body);
      forking = undefined;
      ui.forkDialog.close();
      openRun(id);
      ui.traceHeading.focus();
    } catch (error) {
      ui.forkError.textContent = `Could not fork the run: ${error.message}`;
      ui.forkStart.disabled = false;
    }
  }

  /** Says where a fork comes from, with a link to its parent, and marks its replayed and edited steps. */
  function showOrigin(forkOf) {
    if (!forkOf) {
      ui.forkNote.hidden = true;
      ui.forkNote.replaceChildren();
      return;
    }
    const parent = el('a', undefined, forkOf.run);
    parent.href = `${window.location.search}#/runs/${forkOf.run}`;
    const edits = {
      turn: "you wrote the model's turn",
      observation: 'you played the tool',
    };
    const what = (forkOf.edited ?? []).map((e) => edits[e]).filter(Boolean);
    ui.forkNote.replaceChildren(
      document.createTextNode('Forked from run '),
      parent,
      document.createTextNode(` at step ${forkOf.step}${what.length ? ` (${what.join(' and ')})` : ''}.`),
    );
    ui.forkNote.hidden = false;
  }

  /** Marks step `index` of a fork: replayed from the parent, or written by the user. */
  function markStep(forkOf, index) {
    if (!forkOf) return;
    const edited = forkOf.edited ?? [];
    let text;
    if (index <= (forkOf.replayed ?? forkOf.step - 1))
      text = 'Replayed from the parent run: no model call, no tool run.';
    else if (index === forkOf.step && edited.length)
      text = edited.includes('observation')
        ? `${edited.includes('turn') ? "You wrote the model's turn, and" : 'You'} played the tool here: it did not run.`
        : "You wrote the model's turn here.";
    if (text) view.noteStep(index, text);
  }

  ui.forkForm.addEventListener('submit', submit);
  ui.forkCancel.addEventListener('click', () => ui.forkDialog.close());

  return { addButtons, showOrigin, markStep };
}
