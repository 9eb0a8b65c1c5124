/**
 * The report's chart: score against cost, one labelled point per strategy, as a small hand-written SVG.
 * When a cost is unknown (no price for the model), the x axis shows tokens instead.
 *
 * @module
 */
import type { StrategySummary } from './report.js';

const WIDTH = 640;
const HEIGHT = 400;
const PAD = { left: 64, right: 24, top: 40, bottom: 56 };
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2'];

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Renders the chart. `scoreLabel` names the y axis, e.g. `EM` or `accuracy`. */
export function renderChart(
  summaries: readonly StrategySummary[],
  input: { title: string; scoreLabel: string },
): string {
  const shown = summaries.filter((s) => s.items > 0);
  const byCost = shown.length > 0 && shown.every((s) => s.costUsd !== undefined);
  const xOf = (s: StrategySummary) => (byCost ? (s.costUsd ?? 0) : s.inputTokens + s.outputTokens);
  const xMax = Math.max(...shown.map(xOf), 0) || 1;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const px = (x: number) => PAD.left + (x / xMax) * plotW;
  const py = (y: number) => PAD.top + (1 - y) * plotH;
  const xLabel = byCost ? 'cost (USD)' : 'tokens (input + output)';
  const formatX = (x: number) => (byCost ? `$${x.toPrecision(3)}` : String(Math.round(x)));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(input.title)}</text>`,
    `<line x1="${PAD.left}" y1="${py(0)}" x2="${PAD.left + plotW}" y2="${py(0)}" stroke="#333"/>`,
    `<line x1="${PAD.left}" y1="${py(0)}" x2="${PAD.left}" y2="${py(1)}" stroke="#333"/>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const y = k / 4;
    const x = (xMax * k) / 4;
    parts.push(
      `<line x1="${PAD.left}" y1="${py(y)}" x2="${PAD.left + plotW}" y2="${py(y)}" stroke="#ddd"/>`,
      `<text x="${PAD.left - 8}" y="${py(y) + 4}" text-anchor="end">${Math.round(y * 100)}%</text>`,
      `<text x="${px(x)}" y="${py(0) + 18}" text-anchor="middle">${escapeXml(formatX(x))}</text>`,
    );
  }
  parts.push(
    `<text x="${PAD.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">${xLabel}</text>`,
    `<text x="16" y="${PAD.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${PAD.top + plotH / 2})">${escapeXml(input.scoreLabel)}</text>`,
  );
  shown.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const cx = px(xOf(s)).toFixed(1);
    const cy = py(s.score).toFixed(1);
    parts.push(
      `<circle cx="${cx}" cy="${cy}" r="5" fill="${color}"><title>${escapeXml(`${s.strategy}: ${(s.score * 100).toFixed(1)}%, ${formatX(xOf(s))}`)}</title></circle>`,
      // Points in the right half are labelled on their left, so a label never runs off the chart.
      Number(cx) > WIDTH / 2
        ? `<text x="${Number(cx) - 8}" y="${Number(cy) - 8}" fill="${color}" text-anchor="end">${escapeXml(s.strategy)}</text>`
        : `<text x="${Number(cx) + 8}" y="${Number(cy) - 8}" fill="${color}">${escapeXml(s.strategy)}</text>`,
    );
  });
  parts.push('</svg>', '');
  return parts.join('\n');
}
