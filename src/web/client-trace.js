/**
 * The trace view of the playground page: turns the run's messages (the loop's events, sent by the server)
 * into numbered steps, each a group of blocks (Thought, Action, Observation, approval, answer) with its
 * model time, tool time and tokens, and an inspector showing what the model call was sent and what came
 * back. The text of a model turn grows as the model writes it (`model-delta`), and stays on screen when
 * the run stops or fails before the turn ends. It also keeps the counters and the run's timeline.
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
    aborted: 'No answer: you stopped the run.',
    error: 'No answer: the run failed.',
    paused: 'Paused: the run waits for an approval.',
  };
  /** An abort's error, when it only repeats what the status says (the page's own Stop). */
  const SAID_BY_STATUS = /^The run was aborted(?:: stopped from the playground)?\.?$/;
  /** Where a live turn's Action or Answer starts (English labels, as the playground uses). */
  const ACTION_LINE =
    /^[ \t>*_#-]*(Action|Answer|Final Answer|FinalAnswer|Final_Answer)\s*(?:\d+\s*)?:[ \t]*/im;
  const THOUGHT_START = /^\s*[>*_#-]*\s*Thought\s*(?:\d+\s*)?:[ \t]*/i;

  /** The run on screen. */
  let run = newRun();

  function newRun() {
    return {
      steps: 0,
      inputTokens: undefined,
      outputTokens: undefined,
      estimated: false,
      costUsd: undefined,
      approval: undefined,
      modelId: '',
      systemPrompt: '',
      /** Step number → its group (elements and what is known about it). */
      groups: new Map(),
      ended: false,
    };
  }

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

  /** Keeps the newest content in view, unless the reader turned following off. */
  function follow(element) {
    if (!ui.follow || ui.follow.checked) element.scrollIntoView({ block: 'nearest' });
  }

  function seconds(ms) {
    return ms === undefined ? undefined : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  }

  function count(n) {
    return n === undefined ? 'unknown' : n.toLocaleString('en');
  }

  /** A block (Thought, Action, Observation, ...): `<li>` with a label and an optional text. */
  function block(kind, label, text, step) {
    const item = el('li', `block ${kind}`);
    item.dataset.kind = kind;
    if (step !== undefined) item.dataset.step = String(step);
    item.append(el('span', 'label', label));
    if (text !== undefined && text !== '') item.append(el('div', 'text', text));
    return item;
  }

  /** Appends a block to step `step`'s group, or to the run (no step). */
  function addBlock(kind, label, text, step) {
    const item = block(kind, label, text, step);
    if (step === undefined) ui.trace.append(item);
    else group(step).blocks.append(item);
    follow(item);
    return item;
  }

  /** Step `step`'s group, made on first use: a heading, its figures, its blocks and its inspector. */
  function group(step) {
    const known = run.groups.get(step);
    if (known) return known;
    const item = el('li', 'step');
    item.dataset.step = String(step);
    const head = el('div', 'step-head');
    const heading = el('h3', 'step-title', `Step ${step}`);
    const figures = el('p', 'step-figures');
    head.append(heading, figures);
    const blocks = el('ol', 'blocks');
    const inspector = el('details', 'inspector');
    inspector.append(el('summary', undefined, `Inspect step ${step}: what the model was sent and wrote`));
    inspector.hidden = true;
    item.append(head, blocks, inspector);
    ui.trace.append(item);
    const created = { item, figures, blocks, inspector, live: undefined, text: '', request: undefined };
    run.groups.set(step, created);
    return created;
  }

  /** Splits a turn being written into its Thought and its Action or Answer so far. */
  function splitLive(text) {
    const match = ACTION_LINE.exec(text);
    const head = match ? text.slice(0, match.index) : text;
    const thought = head.replace(THOUGHT_START, '').trim();
    if (!match) return { thought };
    const answer = !/^action$/i.test(match[1]);
    return {
      thought,
      kind: answer ? 'answer' : 'action',
      rest: text.slice(match.index + match[0].length).trim(),
    };
  }

  /** Shows a model turn as it is written: the Thought, then the Action or Answer, growing. */
  function showDelta(message) {
    const g = group(message.step);
    g.text += message.text;
    if (!g.live) {
      const thought = block('thought live', 'Thought (being written)', undefined, message.step);
      thought.dataset.kind = 'thought';
      const text = el('div', 'text');
      thought.append(text);
      g.blocks.append(thought);
      g.live = { thought, thoughtText: text, rest: undefined, restText: undefined };
    }
    const parts = splitLive(g.text);
    g.live.thoughtText.textContent = parts.thought;
    if (parts.kind && !g.live.rest) {
      const label = parts.kind === 'answer' ? 'Answer (being written)' : 'Action (being written)';
      g.live.rest = block(`${parts.kind} live`, label, undefined, message.step);
      g.live.rest.dataset.kind = parts.kind;
      g.live.restText = el('div', 'text');
      g.live.rest.append(g.live.restText);
      g.blocks.append(g.live.rest);
    }
    if (g.live.restText) g.live.restText.textContent = parts.rest ?? '';
    follow(g.live.rest ?? g.live.thought);
  }

  /** Replaces the live blocks of a step by nothing (its parsed turn follows). */
  function clearLive(g) {
    g.live?.thought.remove();
    g.live?.rest?.remove();
    g.live = undefined;
  }

  /** After a stop or a failure: the text written so far stays, marked as unfinished. */
  function markUnfinished() {
    for (const g of run.groups.values()) {
      if (!g.live) continue;
      for (const item of [g.live.thought, g.live.rest]) {
        if (!item) continue;
        item.classList.remove('live');
        item.classList.add('unfinished');
        const label = item.querySelector('.label');
        label.textContent = label.textContent.replace('(being written)', '(unfinished: the run ended here)');
      }
      g.live = undefined;
    }
  }

  function addTokens(usage) {
    if (usage?.inputTokens !== undefined) run.inputTokens = (run.inputTokens ?? 0) + usage.inputTokens;
    if (usage?.outputTokens !== undefined) run.outputTokens = (run.outputTokens ?? 0) + usage.outputTokens;
    if (usage?.estimated) run.estimated = true;
  }

  function showCounts() {
    ui.steps.textContent = String(run.steps);
    const known = run.inputTokens !== undefined || run.outputTokens !== undefined;
    ui.tokens.textContent = known
      ? `${run.estimated ? 'about ' : ''}${count((run.inputTokens ?? 0) + (run.outputTokens ?? 0))} (${count(run.inputTokens)} in, ${count(run.outputTokens)} out)`
      : 'unknown';
    ui.cost.textContent = run.costUsd === undefined ? 'unknown' : `$${run.costUsd.toFixed(4)}`;
    const why = run.costUsd === undefined && known && run.ended;
    ui.costHelp.hidden = !why;
    if (why)
      ui.costHelp.textContent = `Cost unknown: taoloop has no price for ${run.modelId || 'this model'}. Start the playground with --price IN/OUT (US dollars per million input and output tokens), e.g. taoloop serve --price 0.15/0.60, to see the cost.`;
  }

  /** Thought, then Action / Answer / the unusable turn, as the model wrote them. */
  function showTurn(message) {
    const { turn, step } = message;
    const g = group(step);
    clearLive(g);
    g.text = message.text;
    g.turn = turn;
    addTokens(message.usage);
    if (turn.thought) addBlock('thought', 'Thought', turn.thought, step);
    if (turn.type === 'action') addBlock('action', 'Action', `${turn.tool}[${turn.input}]`, step);
    if (turn.type === 'answer') addBlock('answer', 'Answer', turn.text, step);
    if (turn.type === 'none')
      addBlock('format-error', 'Format error: unusable model turn', message.text, step);
    showCounts();
  }

  /** The step's figures: model time, tool time, input and output tokens. */
  function showFigures(g, step) {
    const parts = [`model ${seconds(step.modelDurationMs)}`];
    const toolMs = step.observation?.durationMs;
    if (toolMs !== undefined) parts.push(`tool ${seconds(toolMs)}`);
    const usage = step.usage ?? {};
    const about = usage.estimated ? 'about ' : '';
    if (usage.inputTokens !== undefined || usage.outputTokens !== undefined)
      parts.push(`${about}${count(usage.inputTokens)} in / ${count(usage.outputTokens)} out tokens`);
    else parts.push('tokens unknown');
    g.figures.textContent = parts.join(' · ');
  }

  /** The observation the model sees next (a tool's output, a rejection, or the format hint). */
  function showObservation(step) {
    run.steps += 1;
    if (step.costUsd !== undefined) run.costUsd = (run.costUsd ?? 0) + step.costUsd;
    const g = group(step.index);
    const observation = step.observation;
    if (observation) {
      const formatError = observation.source === 'format-error';
      const kind = formatError ? 'observation format-hint' : `observation${observation.ok ? '' : ' failed'}`;
      const label = formatError ? 'Observation (format hint sent to the model)' : 'Observation';
      const item = addBlock(kind, label, observation.text, step.index);
      if (observation.fullText !== undefined)
        item.append(el('p', 'note', 'Shortened for the model; the full output is in the inspector.'));
    }
    g.step = step;
    showFigures(g, step);
    fillInspector(g, step);
    showTimeline();
    showCounts();
  }

  /** A titled, preformatted section of the inspector. */
  function section(parent, title, text, className) {
    const part = el('section', `inspect-part${className ? ` ${className}` : ''}`);
    part.append(el('h4', undefined, title), el('pre', undefined, text));
    parent.append(part);
    return part;
  }

  /** The inspector of a finished step: request, raw reply beside the parsed turn, dropped text, full output. */
  function fillInspector(g, step) {
    const body = el('div', 'inspect-body');
    const request = g.request;
    if (request) {
      const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
      section(body, 'System prompt', system.join('\n\n') || run.systemPrompt || '(none)');
      const rest = request.messages.filter((m) => m.role !== 'system');
      const list = el('ol', 'messages');
      for (const message of rest) {
        const item = el('li', `message ${message.role}`);
        const who = message.role === 'tool' ? `tool (${message.toolName})` : message.role;
        item.append(el('span', 'role', who), el('pre', undefined, message.content));
        list.append(item);
      }
      const part = el('section', 'inspect-part');
      part.append(el('h4', undefined, `Messages sent (${rest.length}, after the system prompt)`), list);
      body.append(part);
      section(
        body,
        'Stop sequences',
        request.stopSequences?.length
          ? request.stopSequences.map((s) => JSON.stringify(s)).join('  ')
          : '(none)',
      );
    } else {
      section(body, 'Request', 'Not recorded for this run (traces from before this playground version).');
    }
    const pair = el('div', 'inspect-pair');
    section(pair, 'Raw model text', step.modelText ?? g.text);
    section(pair, 'Parsed turn', JSON.stringify(step.turn, null, 2));
    body.append(pair);
    const dropped = [];
    if (
      step.transcriptText !== undefined &&
      step.modelText !== undefined &&
      step.transcriptText !== step.modelText
    )
      dropped.push(`Kept in the transcript:\n${step.transcriptText}`);
    if (g.dropped) dropped.push(`Invented observation (cut):\n${g.dropped}`);
    if (step.turn?.trailingText) dropped.push(`After the action (ignored):\n${step.turn.trailingText}`);
    if (step.turn?.ignoredText) dropped.push(`Ignored:\n${step.turn.ignoredText}`);
    if (step.turn?.ignoredActions?.length)
      dropped.push(`Actions not run:\n${step.turn.ignoredActions.join('\n')}`);
    section(body, 'Dropped', dropped.join('\n\n') || 'Nothing: the whole reply was used.', 'dropped-part');
    if (step.observation?.fullText !== undefined)
      section(body, 'Full tool output (the model saw a shortened one)', step.observation.fullText);
    g.inspector.querySelector('.inspect-body')?.remove();
    g.inspector.append(body);
    g.inspector.hidden = false;
  }

  /** The run's timeline: one bar per step, its model and tool time in proportion. */
  function showTimeline() {
    if (!ui.timeline) return;
    const steps = [...run.groups.values()].filter((g) => g.step).map((g) => g.step);
    const total = steps.reduce((sum, s) => sum + s.modelDurationMs + (s.observation?.durationMs ?? 0), 0);
    const bars = steps.map((s) => {
      const item = el('li', 'timeline-step');
      const toolMs = s.observation?.durationMs ?? 0;
      const share = total > 0 ? ((s.modelDurationMs + toolMs) / total) * 100 : 100 / steps.length;
      item.style.flexGrow = String(Math.max(share, 0.5));
      const summary = `Step ${s.index}: model ${seconds(s.modelDurationMs)}${toolMs ? `, tool ${seconds(toolMs)}` : ''}`;
      item.title = summary;
      const model = el('span', 'segment model');
      model.style.flexGrow = String(Math.max(s.modelDurationMs, 1));
      item.append(model);
      if (toolMs) {
        const tool = el('span', 'segment tool');
        tool.style.flexGrow = String(toolMs);
        item.append(tool);
      }
      item.append(el('span', 'visually-hidden', summary));
      return item;
    });
    ui.timeline.replaceChildren(...bars);
    ui.timelineBox.hidden = steps.length === 0;
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

  function showApprovalDecision(decision) {
    const approval = run.approval;
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
    run.approval = undefined;
  }

  function showEnd(result) {
    run.ended = true;
    markUnfinished();
    run.steps = result.steps.length;
    const { inputTokens, outputTokens } = result.usage;
    if (inputTokens !== undefined) run.inputTokens = inputTokens;
    if (outputTokens !== undefined) run.outputTokens = outputTokens;
    if (result.costUsd !== undefined) run.costUsd = result.costUsd;
    showCounts();
    const why = STOP_TEXT[result.status] ?? result.status;
    const turns = result.steps.length === 1 ? '1 model turn' : `${result.steps.length} model turns`;
    const summary = `${turns} in ${(result.durationMs / 1000).toFixed(1)} s.`;
    const error = result.error && !SAID_BY_STATUS.test(result.error) ? ` ${result.error}` : '';
    const text = `${why}${error} ${summary}`;
    const end = addBlock(`end ${result.status}`, `Run ended: ${result.status.replace('_', ' ')}`, text);
    end.tabIndex = -1;
    setStatus(text);
    hooks.onRunEnd(end);
  }

  /** Renders one message of the run's event stream. */
  function show(message) {
    switch (message.type) {
      case 'run-start':
        run.modelId = message.modelId;
        run.systemPrompt = message.systemPrompt ?? '';
        ui.runTitle.textContent = message.question;
        ui.runMeta.textContent = `Model ${message.modelId} · tools: ${message.tools.join(', ') || 'none'}`;
        hooks.onRunStart?.(message);
        break;
      case 'model-start':
        group(message.step);
        setStatus(`Step ${message.step}: the model is writing…`);
        break;
      case 'model-request':
        group(message.step).request = message;
        break;
      case 'model-delta':
        showDelta(message);
        break;
      case 'model-retry':
        addBlock(
          'retry',
          `Retry ${message.retry}`,
          `The model call failed: ${message.error} Trying again in ${seconds(message.delayMs)}.`,
          message.step,
        );
        setStatus(
          `Step ${message.step}: the model call failed; retry ${message.retry} in ${seconds(message.delayMs)}.`,
        );
        break;
      case 'model-fallback': {
        const g = group(message.step);
        clearLive(g);
        g.text = '';
        addBlock(
          'retry',
          'Fallback',
          `${message.fromModelId} failed (${message.error}); ${message.toModelId} takes over.`,
          message.step,
        );
        break;
      }
      case 'model-end':
        showTurn(message);
        break;
      case 'invented-observation':
        group(message.step).dropped = message.droppedText;
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
        run.ended = true;
        markUnfinished();
        addBlock('error', 'The run failed', message.error);
        setStatus(`The run failed: ${message.error}`);
        break;
      default:
        break;
    }
  }

  /** Empties the view for another run. */
  function reset() {
    run = newRun();
    ui.trace.replaceChildren();
    if (ui.timeline) ui.timeline.replaceChildren();
    if (ui.timelineBox) ui.timelineBox.hidden = true;
    ui.runTitle.textContent = '';
    ui.runMeta.textContent = '';
    showCounts();
  }

  return { el, setStatus, show, reset };
}
