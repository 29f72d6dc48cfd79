import type { CostEstimate } from './cost-line.js';

/** One bar of the chart: a front door with one set of options, and its bill. */
export interface CostBar {
  /** The front door, e.g. `http-api`; bars of one front door are drawn together. */
  readonly ingress: string;
  /** What the bar adds to the bare path, e.g. `with idempotency`; empty for the bare path. */
  readonly variant: string;
  readonly estimate: CostEstimate;
}

// Colour-blind-safe palette (Okabe and Ito), then greys; a component keeps its colour in every bar.
const PALETTE = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#56B4E9',
  '#D55E00',
  '#F0E442',
  '#000000',
  '#999999',
  '#666666',
  '#CCCCCC',
];
const WIDTH = 860;
const LABEL_WIDTH = 290;
const TOTAL_WIDTH = 60;
const BAR_HEIGHT = 20;
const BAR_GAP = 8;
const GROUP_GAP = 14;
const TOP = 46;
const LEGEND_ROW = 18;
const FONT = 'font-family="system-ui, sans-serif" font-size="12"';

/** The chart's name for a line of the bill: its component without the details in brackets. */
export function componentName(component: string): string {
  return component.replace(/\s*\(.*\)$/, '');
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (character) =>
      ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[character] ??
      character,
  );
}

/** A round step for the axis: 0.25, 0.5, 1, 2 or 5 dollars, about six ticks across. */
function tickStep(maxUsd: number): number {
  return [0.25, 0.5, 1, 2, 5, 10].find((step) => maxUsd / step <= 7) ?? 20;
}

/**
 * Draws the cost per million calls of each bar as a horizontal bar stacked by component, as an
 * SVG document. Components are whatever lines the bills hold (a line added to the cost model,
 * an archive say, shows up as one more colour); lines of $0.00 are left out of bar and legend.
 * Each segment carries `data-component` and `data-usd`, and a tooltip.
 *
 * @param title - the chart's heading
 * @param bars - the bars, top to bottom; bars of one front door should be adjacent
 */
export function renderCostChart(title: string, bars: readonly CostBar[]): string {
  const components: string[] = [];
  for (const { estimate } of bars) {
    for (const line of estimate.lines) {
      const name = componentName(line.component);
      if (line.usd > 0 && !components.includes(name)) components.push(name);
    }
  }
  const colour = (name: string): string =>
    PALETTE[components.indexOf(name) % PALETTE.length] ?? '#999999';
  const maxUsd = Math.max(0, ...bars.map(({ estimate }) => estimate.totalUsd));
  const step = tickStep(maxUsd);
  const axisMax = Math.max(step, Math.ceil(maxUsd / step) * step);
  const plotWidth = WIDTH - LABEL_WIDTH - TOTAL_WIDTH - 20;
  const x = (usd: number): number => LABEL_WIDTH + (usd / axisMax) * plotWidth;

  const parts: string[] = [];
  let y = TOP;
  bars.forEach((bar, index) => {
    if (index > 0 && bars[index - 1]?.ingress !== bar.ingress) y += GROUP_GAP;
    const label = bar.variant === '' ? bar.ingress : `${bar.ingress}, ${bar.variant}`;
    const segments: string[] = [];
    let from = 0;
    for (const line of bar.estimate.lines) {
      if (line.usd <= 0) continue;
      const name = componentName(line.component);
      const left = x(from);
      const width = x(from + line.usd) - left;
      segments.push(
        `<rect x="${left.toFixed(2)}" y="${y}" width="${width.toFixed(2)}" height="${BAR_HEIGHT}" fill="${colour(name)}" data-component="${escapeXml(name)}" data-usd="${line.usd.toFixed(4)}"><title>${escapeXml(`${label}: ${name} $${line.usd.toFixed(2)}`)}</title></rect>`,
      );
      from += line.usd;
    }
    const middle = y + BAR_HEIGHT / 2 + 4;
    parts.push(
      `<g class="bar" data-ingress="${escapeXml(bar.ingress)}" data-variant="${escapeXml(bar.variant)}" data-total-usd="${bar.estimate.totalUsd.toFixed(4)}">`,
      `<text x="${LABEL_WIDTH - 8}" y="${middle}" text-anchor="end" ${FONT}>${escapeXml(label)}</text>`,
      ...segments,
      `<text x="${(x(from) + 6).toFixed(2)}" y="${middle}" ${FONT}>$${bar.estimate.totalUsd.toFixed(2)}</text>`,
      '</g>',
    );
    y += BAR_HEIGHT + BAR_GAP;
  });

  const axisY = y + 4;
  const ticks: string[] = [];
  for (let usd = 0; usd <= axisMax + 1e-9; usd += step) {
    const tickX = x(usd).toFixed(2);
    ticks.push(
      `<line x1="${tickX}" y1="${TOP - 6}" x2="${tickX}" y2="${axisY}" stroke="#dddddd"/>`,
      `<text x="${tickX}" y="${axisY + 14}" text-anchor="middle" ${FONT}>$${usd.toFixed(2)}</text>`,
    );
  }
  const legendTop = axisY + 34;
  const perRow = 2;
  const legend = components.map((name, index) => {
    const legendX = LABEL_WIDTH + (index % perRow) * (plotWidth / perRow);
    const legendY = legendTop + Math.floor(index / perRow) * LEGEND_ROW;
    return `<g class="legend"><rect x="${legendX.toFixed(2)}" y="${legendY}" width="12" height="12" fill="${colour(name)}"/><text x="${(legendX + 18).toFixed(2)}" y="${legendY + 10}" ${FONT}>${escapeXml(name)}</text></g>`;
  });
  const height = legendTop + Math.ceil(components.length / perRow) * LEGEND_ROW + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeXml(title)}">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="20" y="24" font-family="system-ui, sans-serif" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
    ...ticks,
    ...parts,
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
