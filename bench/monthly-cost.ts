import { bill, type CostEstimate, costLine } from './cost-line.js';
import type { CostInputs } from './cost-model.js';
import { PRICES } from './prices.js';

/**
 * What a deployed receiver costs a month whatever its traffic, and what each named endpoint adds.
 * @module
 */

/**
 * What one named endpoint adds per month: its secret, its silence alarm, and the Secrets Manager
 * calls of its own key ring, reloaded once per `secretCacheSeconds` in each of `warmEnvironments`
 * serving it (an upper bound: a ring reloads only when a call comes after its cache expired). A
 * deployment with endpoints also keeps the endpoint directory, one more secret, whatever their
 * number.
 */
export function estimateEndpointMonthlyCost(
  inputs: Pick<
    CostInputs,
    'warmEnvironments' | 'secretCacheSeconds' | 'secretCallsPerRefresh' | 'daysPerMonth'
  >,
  prices: typeof PRICES = PRICES,
): CostEstimate {
  const refreshesPerEnvironment = (inputs.daysPerMonth * 86_400) / inputs.secretCacheSeconds;
  return bill([
    costLine(
      "The endpoint's secret",
      1,
      'secret-month',
      prices.secretsManagerPerSecretMonth,
      `$${prices.secretsManagerPerSecretMonth.toFixed(2)} per secret per month`,
    ),
    costLine(
      'Secrets Manager API calls of its key ring (after caching)',
      inputs.warmEnvironments * refreshesPerEnvironment * inputs.secretCallsPerRefresh,
      'call',
      prices.secretsManagerPer10kCalls / 1e4,
      `$${prices.secretsManagerPer10kCalls.toFixed(2)} per 10,000 calls`,
    ),
    costLine(
      'Its silence alarm',
      1,
      'alarm-month',
      prices.cloudWatchPerAlarmMonth,
      `$${prices.cloudWatchPerAlarmMonth.toFixed(2)} per alarm per month`,
    ),
  ]);
}

/** The monthly cost that does not depend on traffic: the secret and the alarms. */
export function estimateFixedMonthlyCost(
  fixed: { readonly secrets: number; readonly alarms: number },
  prices: typeof PRICES = PRICES,
): CostEstimate {
  return bill([
    costLine(
      'Secrets Manager secret',
      fixed.secrets,
      'secret-month',
      prices.secretsManagerPerSecretMonth,
      `$${prices.secretsManagerPerSecretMonth.toFixed(2)} per secret per month`,
    ),
    costLine(
      'CloudWatch alarms (standard resolution)',
      fixed.alarms,
      'alarm-month',
      prices.cloudWatchPerAlarmMonth,
      `$${prices.cloudWatchPerAlarmMonth.toFixed(2)} per alarm per month`,
    ),
  ]);
}
