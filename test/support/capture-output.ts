import { vi } from 'vitest';

/** Everything a piece of code wrote to stdout and stderr while captured. */
export interface CapturedOutput {
  /** All text written, stdout then stderr interleaved in write order. */
  text(): string;
  /** Each written line that is a JSON object, parsed (Powertools log lines and EMF blobs). */
  records(): Record<string, unknown>[];
  /** Log lines (they have a `level`; a queued call's line has no `message`). */
  logs(): Record<string, unknown>[];
  /** Embedded Metric Format blobs (they have `_aws`). */
  metrics(): Record<string, unknown>[];
  /** Names and values of every metric emitted, e.g. `{ name: 'WebhookReceived', value: 1, dimensions }`. */
  metricValues(): { name: string; value: unknown; dimensions: Record<string, unknown> }[];
  /** Stops capturing and writes nothing more. */
  restore(): void;
}

interface EmfBlob {
  _aws: {
    CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[];
  };
  [key: string]: unknown;
}

/**
 * Captures stdout and stderr (where Powertools Logger and Metrics write in Lambda mode) so tests
 * can assert on log content and metrics, and keeps them out of the test output.
 */
export function captureOutput(): CapturedOutput {
  const chunks: string[] = [];
  const capture = (chunk: unknown): boolean => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture),
  ];
  const text = () => chunks.join('');
  const records = () =>
    text()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const metrics = () => records().filter((record) => '_aws' in record);
  return {
    text,
    records,
    logs: () => records().filter((record) => 'level' in record && !('_aws' in record)),
    metrics,
    metricValues: () =>
      metrics().flatMap((record) => {
        const blob = record as EmfBlob;
        return blob._aws.CloudWatchMetrics.flatMap((directive) =>
          directive.Metrics.map(({ Name }) => ({
            name: Name,
            value: blob[Name],
            dimensions: Object.fromEntries(
              (directive.Dimensions[0] ?? []).map((dimension) => [dimension, blob[dimension]]),
            ),
          })),
        );
      }),
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}

/**
 * Runs `act` with output captured, restoring the streams however it ends.
 *
 * @param act - what to run
 * @returns its result and the output it wrote
 */
export async function withCapturedOutput<T>(act: () => Promise<T>): Promise<[T, CapturedOutput]> {
  const output = captureOutput();
  try {
    return [await act(), output];
  } finally {
    output.restore();
  }
}
