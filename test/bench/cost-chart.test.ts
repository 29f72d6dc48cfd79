import { describe, expect, it } from 'vitest';
import { type CostBar, componentName, renderCostChart } from '../../bench/cost-chart.js';
import {
  type CostInputs,
  estimateCostPerMillion,
  IDEMPOTENCY_WRITE_REQUESTS,
} from '../../bench/cost-model.js';

const INPUTS: CostInputs = {
  ingress: 'http-api',
  receiverBilledMs: 51,
  receiverMemoryMb: 192,
  queue: 'standard',
  consumerBatchSize: 10,
  consumerBilledMsPerBatch: 100,
  consumerMemoryMb: 256,
  warmEnvironments: 2,
  secretCacheSeconds: 3600,
  secretCallsPerRefresh: 2,
  daysPerMonth: 30,
  receiverLogBytesPerCall: 230,
  platformLogBytesPerInvocation: 0,
  accessLogBytesPerCall: 190,
  idempotencyWritesPerRecord: 0,
};

/** Every front door, without and with the idempotency table, as the cost section draws them. */
const BARS: CostBar[] = (['http-api', 'rest-api', 'function-url'] as const).flatMap((ingress) => [
  { ingress, variant: '', estimate: estimateCostPerMillion({ ...INPUTS, ingress }) },
  {
    ingress,
    variant: 'with idempotency',
    estimate: estimateCostPerMillion({
      ...INPUTS,
      ingress,
      idempotencyWritesPerRecord: IDEMPOTENCY_WRITE_REQUESTS.processed,
    }),
  },
]);

/** The elements of an SVG text, checked to nest properly; throws on a broken document. */
function elements(svg: string): { name: string; attributes: Record<string, string> }[] {
  const open: string[] = [];
  const found: { name: string; attributes: Record<string, string> }[] = [];
  const text = svg.replace(/>[^<]*</g, (between) => {
    // Text between tags must be escaped.
    if (/&(?!(lt|gt|amp|quot|apos);)|[<>]/.test(between.slice(1, -1))) {
      throw new Error(`unescaped text ${between}`);
    }
    return '><';
  });
  for (const [, closing, name = '', rest = '', selfClosing] of text.matchAll(
    /<(\/?)([a-zA-Z]+)((?:\s+[a-zA-Z][a-zA-Z0-9:-]*="[^"<>]*")*)\s*(\/?)>/g,
  )) {
    if (closing) {
      if (open.pop() !== name) throw new Error(`</${name}> closes nothing open`);
      continue;
    }
    const attributes = Object.fromEntries(
      [...rest.matchAll(/([a-zA-Z][a-zA-Z0-9:-]*)="([^"]*)"/g)].map(([, key = '', value = '']) => [
        key,
        value,
      ]),
    );
    found.push({ name, attributes });
    if (!selfClosing) open.push(name);
  }
  if (open.length > 0) throw new Error(`unclosed ${open.join(', ')}`);
  // Every tag must have been read by the pattern above.
  const tags = text.match(/<[^>]*>/g) ?? [];
  if (tags.length !== found.length + tags.filter((tag) => tag.startsWith('</')).length) {
    throw new Error('a tag the reader could not parse');
  }
  return found;
}

describe('Function: renderCostChart', () => {
  const svg = renderCostChart('Cost per million webhooks', BARS);
  const parsed = elements(svg);
  const bars = parsed.filter(({ name, attributes }) => name === 'g' && attributes.class === 'bar');

  it('writes one well-formed SVG document', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(parsed[0]?.name).toBe('svg');
  });

  it('draws one bar per front door and variant, in the order given', () => {
    expect(
      bars.map(({ attributes }) => [attributes['data-ingress'], attributes['data-variant']]),
    ).toEqual(BARS.map(({ ingress, variant }) => [ingress, variant]));
  });

  it("stacks each bar from the model's lines, and its segments add up to the model's total", () => {
    // Prepare: segments follow their bar's group in document order.
    const segmentsPerBar: number[][] = [];
    for (const { name, attributes } of parsed) {
      if (name === 'g' && attributes.class === 'bar') segmentsPerBar.push([]);
      if (name === 'rect' && attributes['data-usd'] !== undefined) {
        segmentsPerBar.at(-1)?.push(Number(attributes['data-usd']));
      }
    }

    // Assess
    BARS.forEach(({ estimate }, index) => {
      const expected = estimate.lines.filter(({ usd }) => usd > 0).map(({ usd }) => usd);
      expect(segmentsPerBar[index]).toEqual(expected.map((usd) => Number(usd.toFixed(4))));
      expect(Number(bars[index]?.attributes['data-total-usd'])).toBeCloseTo(estimate.totalUsd, 4);
    });
    expect(svg).toContain(`$${BARS[0]?.estimate.totalUsd.toFixed(2)}`);
  });

  it('shows the idempotency writes only in the bars with the table, in one colour throughout', () => {
    // Prepare
    const dynamo = parsed.filter(
      ({ name, attributes }) =>
        name === 'rect' && attributes['data-component'] === 'DynamoDB idempotency writes',
    );

    // Assess
    expect(dynamo).toHaveLength(3);
    expect(new Set(dynamo.map(({ attributes }) => attributes.fill)).size).toBe(1);
  });

  it('takes any component: a line added to the bill gets a segment and a legend entry', () => {
    // Prepare
    const [first] = BARS;
    if (first === undefined) throw new Error('no bar');
    const archive = {
      component: 'Firehose <archive> & S3',
      quantity: 1,
      unit: 'GB',
      unitPriceUsd: 0.03,
      listPrice: '',
      usd: 0.03,
    };
    const withArchive: CostBar = {
      ingress: first.ingress,
      variant: 'with archive',
      estimate: {
        lines: [...first.estimate.lines, archive],
        totalUsd: first.estimate.totalUsd + archive.usd,
      },
    };

    // Act
    const chart = elements(renderCostChart('Cost', [first, withArchive]));

    // Assess
    const archived = chart.filter(
      ({ name, attributes }) =>
        name === 'rect' && attributes['data-component'] === 'Firehose &lt;archive&gt; &amp; S3',
    );
    expect(archived).toHaveLength(1);
    expect(chart.filter(({ attributes }) => attributes.class === 'legend')).toHaveLength(
      new Set(
        withArchive.estimate.lines
          .filter(({ usd }) => usd > 0)
          .map(({ component }) => componentName(component)),
      ).size,
    );
  });
});
