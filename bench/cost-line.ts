/**
 * A bill as the cost model writes it: lines of quantity times a list price, and their sum.
 * @module
 */

/** One line of the bill. */
export interface CostLine {
  readonly component: string;
  /** How much of the priced unit is used, e.g. 1,000,000 requests or 26,000 GB-seconds. */
  readonly quantity: number;
  readonly unit: string;
  /** Price of one `unit`, in USD. */
  readonly unitPriceUsd: number;
  /** The price as the price list quotes it, such as `$<price> per million calls`. */
  readonly listPrice: string;
  readonly usd: number;
}

/** A bill: its lines and their sum. */
export interface CostEstimate {
  readonly lines: readonly CostLine[];
  readonly totalUsd: number;
}

/** A line of `quantity` units at `unitPriceUsd` each. */
export function costLine(
  component: string,
  quantity: number,
  unit: string,
  unitPriceUsd: number,
  listPrice: string,
): CostLine {
  return { component, quantity, unit, unitPriceUsd, listPrice, usd: quantity * unitPriceUsd };
}

/** A price per million units as the price list quotes it. */
export const perMillion = (price: number, units: string): string =>
  `$${price.toFixed(2)} per million ${units}`;

/** A bill of the given lines. */
export function bill(lines: CostLine[]): CostEstimate {
  return { lines, totalUsd: lines.reduce((sum, { usd }) => sum + usd, 0) };
}
