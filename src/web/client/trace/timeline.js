/** The run's timeline: one bar per step, its model and tool time in proportion. */
export function createTimeline({ ui, state, el, seconds }) {
  function show() {
    if (!ui.timeline) return;
    const steps = [...state.run.groups.values()].filter((g) => g.step).map((g) => g.step);
    const total = steps.reduce((sum, s) => sum + s.modelDurationMs + (s.observation?.durationMs ?? 0), 0);
    ui.timeline.replaceChildren(...steps.map((s) => bar(s, total, steps.length)));
    ui.timelineBox.hidden = steps.length === 0;
  }

  /** Step `s`'s bar, its share of the run's `total` time (of `n` steps) wide, with a text for readers. */
  function bar(s, total, n) {
    const item = el('li', 'timeline-step');
    const toolMs = s.observation?.durationMs ?? 0;
    const share = total > 0 ? ((s.modelDurationMs + toolMs) / total) * 100 : 100 / n;
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
  }

  return { show };
}
