/**
 * The trace view of the playground page: turns the run's messages (the loop's events, sent by the server)
 * into blocks, one per Thought, Action, Observation, approval and answer, and keeps the step, token and
 * cost counters.
 *
 * Like `client.js`, this runs in the browser and is served as its source text, so it uses nothing from
 * outside the function. All text from the server is set with `textContent` or `value`, never as HTML.
 */
export function createTraceView(ui, hooks) {
  const STOP_TEXT = {
    answered: 'Answered.',
    max_steps: 'No answer: the step limit was reached.',
    format_errors: 'No answer: the model kept writing turns that do not follow the format.',
    repeated_action: 'No answer: the model kept repeating the same action.',
    budget: 'No answer: the run hit its budget.',
    aborted: 'No answer: the run was stopped.',
    error: 'No answer: the run failed.',
    paused: 'Paused: the run waits for an approval.',
  };
  /** The run on screen: its counters and the approval block waiting for a decision. */
  let run = { steps: 0, tokens: undefined, costUsd: undefined, approval: undefined };

  /** A new element with an optional class and text (as text, never HTML). */
  function el(tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined) element.textContent = String(text);
    return element;
  }

  function setStatus(text) {
    ui.status.textContent = text;
  }

  /** Appends one block (Thought, Action, Observation, ...) to the trace. */
  function addBlock(kind, label, text, step) {
    const item = el('li', `block ${kind}`);
    item.dataset.kind = kind;
    if (step !== undefined) item.dataset.step = String(step);
    item.append(el('span', 'label', label));
    if (text !== undefined && text !== '') item.append(el('div', 'text', text));
    ui.trace.append(item);
    item.scrollIntoView({ block: 'nearest' });
    return item;
  }

  function showCounts() {
    ui.steps.textContent = String(run.steps);
    ui.tokens.textContent = run.tokens === undefined ? 'unknown' : run.tokens.toLocaleString('en');
    ui.cost.textContent = run.costUsd === undefined ? 'unknown' : `$${run.costUsd.toFixed(4)}`;
  }

  function addTokens(usage) {
    const used = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
    if (usage?.inputTokens !== undefined || usage?.outputTokens !== undefined)
      run.tokens = (run.tokens ?? 0) + used;
  }

  /** Thought, then Action / Answer / the unusable turn, as the model wrote them. */
  function showTurn(message) {
    const { turn, step } = message;
    addTokens(message.usage);
    if (turn.thought) addBlock('thought', 'Thought', turn.thought, step);
    if (turn.type === 'action') addBlock('action', 'Action', `${turn.tool}[${turn.input}]`, step);
    if (turn.type === 'answer') addBlock('answer', 'Answer', turn.text, step);
    if (turn.type === 'none')
      addBlock('format-error', 'Format error: unusable model turn', message.text, step);
    showCounts();
  }

  /** The observation the model sees next (a tool's output, a rejection, or the format hint). */
  function showObservation(step) {
    run.steps += 1;
    if (step.costUsd !== undefined) run.costUsd = (run.costUsd ?? 0) + step.costUsd;
    const observation = step.observation;
    if (observation) {
      const formatError = observation.source === 'format-error';
      const kind = formatError ? 'observation format-hint' : `observation${observation.ok ? '' : ' failed'}`;
      const label = formatError ? 'Observation (format hint sent to the model)' : 'Observation';
      addBlock(kind, label, observation.text, step.index);
    }
    showCounts();
  }

  /** An approval block; its buttons work once the server says the request waits (`approval-pending`). */
  function showApprovalRequest(request, step) {
    const item = addBlock('approval', 'Approval needed', undefined, step);
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
      button.addEventListener('click', () => answerApproval(approval, button === approve));
    }
    run.approval = approval;
  }

  function enableApproval(message) {
    const approval = run.approval;
    if (!approval) return;
    approval.requestId = message.requestId;
    for (const control of [approval.input, approval.approve, approval.reject]) control.disabled = false;
    approval.approve.focus();
    setStatus(`Waiting for your approval of ${message.tool}.`);
  }

  async function answerApproval(approval, approved) {
    const edited = approval.input.value !== approval.original;
    const decision = !approved
      ? { type: 'reject' }
      : edited
        ? { type: 'edit', input: approval.input.value }
        : { type: 'approve' };
    approval.approve.disabled = true;
    approval.reject.disabled = true;
    try {
      await hooks.decide(approval.requestId, decision);
    } catch (error) {
      approval.decision.textContent = `Could not send the decision: ${error.message}`;
      approval.approve.disabled = false;
      approval.reject.disabled = false;
    }
  }

  function showApprovalDecision(decision) {
    const approval = run.approval;
    if (!approval) return;
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
    run.approval = undefined;
  }

  function showEnd(result) {
    run.steps = result.steps.length;
    const { inputTokens, outputTokens } = result.usage;
    if (inputTokens !== undefined || outputTokens !== undefined)
      run.tokens = (inputTokens ?? 0) + (outputTokens ?? 0);
    if (result.costUsd !== undefined) run.costUsd = result.costUsd;
    showCounts();
    const why = STOP_TEXT[result.status] ?? result.status;
    const summary = `${result.steps.length} model turns in ${(result.durationMs / 1000).toFixed(1)} s.`;
    const text = `${why}${result.error ? ` ${result.error}` : ''} ${summary}`;
    addBlock(`end ${result.status}`, `Run ended: ${result.status}`, text);
    setStatus(text);
    hooks.onRunEnd();
  }

  /** Renders one message of the run's event stream. */
  function show(message) {
    switch (message.type) {
      case 'run-start':
        ui.runTitle.textContent = message.question;
        ui.runMeta.textContent = `Model ${message.modelId} · tools: ${message.tools.join(', ') || 'none'}`;
        break;
      case 'model-start':
        setStatus(`Step ${message.step}: the model is writing…`);
        break;
      case 'model-end':
        showTurn(message);
        break;
      case 'invented-observation':
        addBlock(
          'dropped',
          'Dropped: an Observation the model wrote itself (not used)',
          message.droppedText,
          message.step,
        );
        break;
      case 'approval-start':
        showApprovalRequest(message.request, message.step);
        break;
      case 'approval-pending':
        enableApproval(message);
        break;
      case 'approval-end':
        showApprovalDecision(message.decision);
        break;
      case 'tool-start':
        setStatus(`Step ${message.step}: running ${message.tool}…`);
        break;
      case 'step-end':
        showObservation(message.step);
        break;
      case 'run-end':
        showEnd(message.result);
        break;
      case 'run-error':
        addBlock('error', 'The run failed', message.error);
        setStatus(`The run failed: ${message.error}`);
        break;
      default:
        break;
    }
  }

  /** Empties the view for another run. */
  function reset() {
    run = { steps: 0, tokens: undefined, costUsd: undefined, approval: undefined };
    ui.trace.replaceChildren();
    ui.runTitle.textContent = '';
    ui.runMeta.textContent = '';
    showCounts();
  }

  return { el, setStatus, show, reset };
}
