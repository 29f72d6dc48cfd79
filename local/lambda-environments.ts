import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/** A Lambda handler for API Gateway proxy events (the receiver's `handler` fits). */
export type ProxyHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/**
 * Most execution environments the local server runs at once: above the connections the load
 * test and the throughput bench open (16 and 10), so neither waits for one, while a flood of
 * connections cannot start handlers without bound.
 */
export const MAX_ENVIRONMENTS = 32;

/**
 * The execution environments of the local run: each takes one call at a time, an idle one (the
 * most recently used, as Lambda reuses warm environments) takes the next call, another is
 * started while every one is busy and fewer than {@link MAX_ENVIRONMENTS} run, and beyond that
 * calls wait for the first free one in arrival order.
 */
export class Environments {
  readonly #idle: ProxyHandler[];
  readonly #waiting: Array<(handler: ProxyHandler) => void> = [];
  readonly #start: (() => ProxyHandler) | undefined;
  #started = 1;

  constructor(first: ProxyHandler, start: (() => ProxyHandler) | undefined) {
    this.#idle = [first];
    this.#start = start;
  }

  async invoke(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
    const handler = this.#idle.pop() ?? this.#another() ?? (await this.#free());
    try {
      return await handler(event, context);
    } finally {
      const next = this.#waiting.shift();
      if (next === undefined) this.#idle.push(handler);
      else next(handler);
    }
  }

  /** A new environment's handler, or `undefined` when no more may be started. */
  #another(): ProxyHandler | undefined {
    if (this.#start === undefined || this.#started >= MAX_ENVIRONMENTS) return undefined;
    const handler = this.#start();
    this.#started += 1;
    return handler;
  }

  #free(): Promise<ProxyHandler> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}
