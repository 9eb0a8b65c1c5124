/**
 * Markdown for the model's answers, made safe by construction: the text is never parsed as HTML. Each
 * block (paragraph, heading, list, quote, code, table, rule) and each inline span (emphasis, code, link) is
 * made with `document.createElement` and filled with `textContent`, so markup in an answer (`<img
 * onerror>`, `<script>`) shows as the text it is and no element the renderer does not make can appear. A
 * link is made only to an `http:`, `https:` or `mailto:` address (a `javascript:` or `data:` one stays
 * text); an image is never loaded: it becomes a link to it. Headings read as strong paragraphs (the page's
 * own headings keep their order).
 *
 * No library: the page script is served as its own source text (see `main.js`), so it can use nothing it
 * does not define; a renderer that makes elements itself also needs no sanitizer after it.
 */
export function createMarkdown({ el }) {
  const SAFE_PROTOCOLS = ['http:', 'https:', 'mailto:'];
  /** Quotes nested deeper than this are shown as text. */
  const MAX_DEPTH = 6;
  /** Longest text rendered as Markdown, in characters; a longer one is shown as plain text. */
  const MAX_MARKDOWN_CHARS = 20_000;
  /** Longest line rendered as Markdown, in characters (a heading or list item is never this long). */
  const MAX_LINE_CHARS = 2_000;
  const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
  const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
  const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
  const QUOTE = /^ {0,3}> ?(.*)$/;
  const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
  const TABLE_RULE = /^ {0,3}\|?[ \t]*:?-{2,}:?[ \t]*(\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$/;

  /** The address of a link the page may open, or `undefined` (a relative or scripted one is not). */
  function safeUrl(raw) {
    try {
      const url = new URL(raw.trim());
      return SAFE_PROTOCOLS.includes(url.protocol) ? url.href : undefined;
    } catch {
      return undefined;
    }
  }

  function link(href, children) {
    const a = el('a');
    a.href = href;
    a.rel = 'noopener noreferrer nofollow';
    a.target = '_blank';
    a.append(...children);
    return a;
  }

  function wrap(tag, text) {
    const element = el(tag);
    element.append(...inline(text));
    return element;
  }

  /** Inline spans, earliest first: each rule's match becomes an element, the text between stays text. */
  const INLINE = [
    { re: /\\([\\`*_{}[\]()#+\-.!~|<>])/, make: (m) => document.createTextNode(m[1]) },
    { re: /`([^`\n]+)`/, make: (m) => el('code', undefined, m[1]) },
    {
      re: /!\[([^\]\n]*)\]\(([^()\s]+)(?:[ \t]+"[^"\n]*")?\)/,
      make: (m) => {
        const href = safeUrl(m[2]);
        const text = `image: ${m[1] || m[2]}`;
        return href ? link(href, [document.createTextNode(text)]) : document.createTextNode(m[0]);
      },
    },
    {
      re: /\[([^\]\n]+)\]\(([^()\s]+)(?:[ \t]+"[^"\n]*")?\)/,
      make: (m) => {
        const href = safeUrl(m[2]);
        return href ? link(href, inline(m[1])) : document.createTextNode(m[0]);
      },
    },
    {
      re: /<((?:https?|mailto):[^\s<>]+)>/,
      make: (m) => {
        const href = safeUrl(m[1]);
        return href ? link(href, [document.createTextNode(m[1])]) : document.createTextNode(m[0]);
      },
    },
    { re: /\*\*(?=\S)([^\n]*?\S)\*\*/, make: (m) => wrap('strong', m[1]) },
    { re: /__(?=\S)([^\n]*?\S)__(?!\w)/, make: (m) => wrap('strong', m[1]) },
    { re: /~~(?=\S)([^\n]*?\S)~~/, make: (m) => wrap('del', m[1]) },
    { re: /\*(?=[^\s*])([^*\n]*?[^\s*])\*/, make: (m) => wrap('em', m[1]) },
    {
      re: /\bhttps?:\/\/[^\s<>()]*[^\s<>().,;:!?'"]/,
      make: (m) => {
        const href = safeUrl(m[0]);
        return href ? link(href, [document.createTextNode(m[0])]) : document.createTextNode(m[0]);
      },
    },
  ];

  /** The inline spans of `text`, as nodes. */
  function inline(text) {
    const nodes = [];
    let rest = text;
    while (rest) {
      let best;
      for (const rule of INLINE) {
        const match = rule.re.exec(rest);
        if (match && (!best || match.index < best.match.index)) best = { rule, match };
      }
      if (!best) {
        nodes.push(document.createTextNode(rest));
        break;
      }
      if (best.match.index > 0) nodes.push(document.createTextNode(rest.slice(0, best.match.index)));
      nodes.push(best.rule.make(best.match));
      rest = rest.slice(best.match.index + best.match[0].length);
    }
    return nodes;
  }

  /** Whether `line` starts a block other than a paragraph (a paragraph ends there). */
  function startsBlock(line) {
    return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
  }

  /** A table's cells, from a `| a | b |` line. */
  function cells(line) {
    return line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
  }

  /** A table, in a box that scrolls sideways on a narrow screen (focusable and named, for keyboards). */
  function table(head, rows) {
    const box = el('div', 'md-table');
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', 'Table');
    const t = el('table');
    const headRow = el('tr');
    for (const cell of head) headRow.append(wrap('th', cell));
    const thead = el('thead');
    thead.append(headRow);
    const tbody = el('tbody');
    for (const row of rows) {
      const tr = el('tr');
      for (let i = 0; i < head.length; i += 1) tr.append(wrap('td', row[i] ?? ''));
      tbody.append(tr);
    }
    t.append(thead, tbody);
    box.append(t);
    return box;
  }

  /** The blocks of `lines`, as elements. */
  function blocks(lines, depth) {
    const out = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (!line.trim()) {
        i += 1;
        continue;
      }
      const fence = FENCE.exec(line);
      if (fence) {
        const marker = fence[1];
        const body = [];
        i += 1;
        while (i < lines.length && !lines[i].trim().startsWith(marker)) body.push(lines[i++]);
        i += 1;
        const pre = el('pre', 'md-code');
        pre.tabIndex = 0;
        pre.append(el('code', undefined, body.join('\n')));
        out.push(pre);
        continue;
      }
      const heading = HEADING.exec(line);
      if (heading) {
        const p = el('p', 'md-heading');
        p.append(wrap('strong', heading[2]));
        out.push(p);
        i += 1;
        continue;
      }
      if (RULE.test(line)) {
        out.push(el('hr'));
        i += 1;
        continue;
      }
      if (QUOTE.test(line)) {
        const inner = [];
        while (i < lines.length && QUOTE.test(lines[i])) inner.push(QUOTE.exec(lines[i++])[1]);
        const quote = el('blockquote');
        if (depth < MAX_DEPTH) quote.append(...blocks(inner, depth + 1));
        else quote.append(el('p', undefined, inner.join('\n')));
        out.push(quote);
        continue;
      }
      const item = ITEM.exec(line);
      if (item) {
        i = list(lines, i, out, depth);
        continue;
      }
      if (line.includes('|') && i + 1 < lines.length && TABLE_RULE.test(lines[i + 1])) {
        const head = cells(line);
        const rows = [];
        i += 2;
        while (i < lines.length && lines[i].includes('|') && lines[i].trim()) rows.push(cells(lines[i++]));
        out.push(table(head, rows));
        continue;
      }
      const para = [line];
      i += 1;
      while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) para.push(lines[i++]);
      out.push(wrap('p', para.map((l) => l.trim()).join('\n')));
    }
    return out;
  }

  /** A list from line `start` on, appended to `out`; returns the index of the line after it. */
  function list(lines, start, out, depth) {
    const first = ITEM.exec(lines[start]);
    const ordered = /\d/.test(first[2]);
    const listEl = el(ordered ? 'ol' : 'ul');
    if (ordered && Number.parseInt(first[2], 10) !== 1) listEl.start = Number.parseInt(first[2], 10);
    let i = start;
    while (i < lines.length) {
      const match = ITEM.exec(lines[i]);
      if (!match || /\d/.test(match[2]) !== ordered) break;
      const body = [match[3]];
      i += 1;
      // The item's further lines: indented, or a blank line followed by an indented one.
      while (i < lines.length) {
        const next = lines[i];
        if (/^\s{2,}\S/.test(next) && !(ITEM.test(next) && /^ {0,1}\S/.test(next)))
          body.push(next.replace(/^\s{2,4}/, ''));
        else if (!next.trim() && i + 1 < lines.length && /^\s{2,}\S/.test(lines[i + 1])) body.push('');
        else break;
        i += 1;
      }
      const li = el('li');
      if (body.length === 1 || depth >= MAX_DEPTH) li.append(...inline(body.join('\n')));
      else {
        const [head, ...rest] = body;
        li.append(...inline(head), ...blocks(rest, depth + 1));
      }
      listEl.append(li);
      // A blank line between items keeps the list going.
      if (i < lines.length && !lines[i].trim() && i + 1 < lines.length) {
        const after = ITEM.exec(lines[i + 1]);
        if (after && /\d/.test(after[2]) === ordered) i += 1;
      }
    }
    out.push(listEl);
    return i;
  }

  /**
   * `text` rendered as Markdown: a `div.markdown` of elements made here, every text set as text. A text
   * longer than {@link MAX_MARKDOWN_CHARS}, or with a line longer than {@link MAX_LINE_CHARS}, is shown as
   * plain text instead: the span rules are matched again after each span, so their time grows with the
   * square of a long run of spans (a looping model's answer froze the tab for seconds at 160k characters).
   */
  function render(text) {
    const source = String(text).replace(/\r\n?/g, '\n');
    const lines = source.split('\n');
    if (source.length > MAX_MARKDOWN_CHARS || lines.some((line) => line.length > MAX_LINE_CHARS)) {
      return el('div', 'markdown markdown-plain', source);
    }
    const root = el('div', 'markdown');
    root.append(...blocks(lines, 0));
    return root;
  }

  return { render };
}
