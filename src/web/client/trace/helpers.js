/**
 * The small helpers every part of the trace view uses: new elements, the status line, following the
 * newest content, and how times and counts read.
 *
 * Like the rest of the page script, the trace view runs in the browser and is served as its source text
 * (see `../main.js`), so each function uses nothing from outside itself but its parameters. All text from
 * the server is set with `textContent` or `value`, never as HTML.
 */
export function createTraceHelpers(ui) {
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

  return { el, setStatus, follow, seconds, count };
}
