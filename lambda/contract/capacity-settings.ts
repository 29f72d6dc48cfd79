/**
 * The front door's capacity defaults, as plain numbers with no CDK import, so `npm run bench --
 * capacity` simulates exactly what the construct deploys. Chosen with that model; the figures
 * behind each reason are in docs/capacity.md and bench/results.md.
 *
 * @module
 */

/** The API stage's token bucket (`throttleRateLimit`, `throttleBurstLimit`) when none is given. */
export const STAGE_THROTTLE_DEFAULTS = {
  /**
   * Calls a second the stage passes steadily. The booking service catching up after an hour's
   * outage at 10 calls a second re-sends 36,000 deliveries; at 200 a second, with new bookings
   * still arriving at 10, that is 210 calls a second for three minutes, which 300 passes with
   * room for an uneven sender (the capacity model turns none away). It is also the bound on
   * forged calls: at most 300 a second reach the receiver, whose cost per hour bench/results.md
   * states. Far below the account's API Gateway quota (10,000 a second, shared by every API of the
   * account and Region), so other APIs keep theirs.
   */
  rateLimit: 300,
  /**
   * Calls the stage passes at once above the steady rate: two seconds of `rateLimit`, so a sender
   * that resumes with a clump of retries (or connections opened together) is not answered 429
   * while its average stays under the rate. It adds at most 600 forged calls, once, to an hour's
   * bound. API Gateway allows up to 5,000 (the account's burst).
   */
  burstLimit: 600,
} as const;
