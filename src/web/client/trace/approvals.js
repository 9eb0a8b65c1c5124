/**
 * Approval requests: a block with the tool's input (editable) and Approve / Reject, which work once the
 * server says the request waits (`approval-pending`), then the decision.
 */
export function createApprovals({ state, el, setStatus, steps, hooks }) {
  /** An approval block; its buttons work once the server says the request waits (`approval-pending`). */
  function showRequest(request, step) {
    const item = steps.addBlock('approval', 'Approval needed', undefined, step);
    const inputId = `approval-input-${step}`;
    const what = el('p', 'text', `${request.tool} wants to run (effects: ${request.effects}).`);
    const label = el('label', undefined, 'Input (edit it to run the tool with another input)');
    label.htmlFor = inputId;
    const input = el('textarea');
    input.id = inputId;
    input.rows = 2;
    input.value = request.input;
    input.disabled = true;
    const approve = el('button', 'approve', 'Approve');
    const reject = el('button', 'reject', 'Reject');
    const decision = el('p', 'decision');
    decision.tabIndex = -1;
    const buttons = el('div', 'buttons');
    buttons.append(approve, reject);
    item.append(what, label, input, buttons, decision);
    const approval = {
      item,
      input,
      buttons,
      approve,
      reject,
      decision,
      original: request.input,
      requestId: '',
    };
    for (const button of [approve, reject]) {
      button.type = 'button';
      button.disabled = true;
      button.addEventListener('click', () => answer(approval, button === approve));
    }
    state.run.approval = approval;
  }

  function enable(message) {
    const { approval } = state.run;
    if (!approval) return;
    approval.requestId = message.requestId;
    for (const control of [approval.input, approval.approve, approval.reject]) control.disabled = false;
    approval.approve.focus();
    setStatus(`Waiting for your approval of ${message.tool}.`);
  }

  async function answer(approval, approved) {
    const edited = approval.input.value !== approval.original;
    const decision = !approved
      ? { type: 'reject' }
      : edited
        ? { type: 'edit', input: approval.input.value }
        : { type: 'approve' };
    approval.approve.disabled = true;
    approval.reject.disabled = true;
    approval.decision.textContent = 'Sending your decision…';
    approval.decision.focus();
    try {
      await hooks.decide(approval.requestId, decision);
    } catch (error) {
      approval.decision.textContent = `Could not send the decision: ${error.message}`;
      approval.approve.disabled = false;
      approval.reject.disabled = false;
    }
  }

  function showDecision(decision) {
    const { approval } = state.run;
    if (!approval) return;
    const hadFocus = approval.item.contains(document.activeElement);
    for (const control of [approval.input, approval.approve, approval.reject]) control.disabled = true;
    approval.buttons.hidden = true;
    const reason = decision.reason ? `: ${decision.reason}` : '';
    const texts = {
      approve: 'Approved.',
      edit: `Approved with edited input: ${decision.input}`,
      reject: `Rejected${reason}.`,
    };
    approval.decision.textContent = texts[decision.type] ?? decision.type;
    approval.item.classList.add(`decided-${decision.type}`);
    // Focus stays on the decision (not the page body) so that keyboard users keep their place.
    if (hadFocus) approval.decision.focus();
    state.run.approval = undefined;
  }

  return { showRequest, enable, showDecision };
}
