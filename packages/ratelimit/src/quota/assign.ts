import { apportion, type Claim, fairShares } from './fair-share.js';
import { type BucketQuota, DENY_ALL, type Strategy } from './strategy.js';

/** One client's recent demand for a bucket, in requests per second, as the demand store keeps it. */
export interface ClientDemand {
  readonly client: string;
  readonly perSecond: number;
}

/**
 * The strategy each client gets for one bucket, in the order of `clients`: a blanket rule goes
 * to every client as it is; a rate or a token bucket is shared out by fairShares and apportion,
 * so the clients' whole numbers add up to at most the bucket's quota. A client whose share
 * rounds to 0 (only when the quota has fewer whole units than clients, or a token bucket's burst
 * fewer tokens) is told DENY_ALL, as a quota of 0 requests is.
 */
export function assign(quota: BucketQuota, clients: readonly ClientDemand[]): Strategy[] {
  if (quota.kind === 'blanket') return clients.map(() => quota.strategy);
  if (quota.kind === 'requests_per_time_unit') {
    const claims = clients.map((client) => claim(client, quota.unitSeconds));
    const requests = apportion(quota.requests, fairShares(quota.requests, claims));
    return requests.map((count) =>
      count > 0 ? { kind: 'requests_per_time_unit', requests: count, unit: quota.unit } : DENY_ALL,
    );
  }
  const claims = clients.map((client) => claim(client, quota.fillIntervalMs / 1000));
  const weights = fairShares(quota.tokensPerFill, claims);
  // Capacity first: a client left without a whole token (a burst smaller than the clients) can
  // admit nothing, so its part of the refill goes to the others instead of being lost.
  const capacities = apportion(quota.maxTokens, weights);
  const fills = apportion(
    quota.tokensPerFill,
    weights.map((weight, i) => ((capacities[i] as number) > 0 ? weight : 0)),
  );
  return fills.map((fill, i) => {
    const maxTokens = capacities[i] as number;
    if (fill <= 0 || maxTokens <= 0) return DENY_ALL;
    return { kind: 'token_bucket', maxTokens, tokensPerFill: fill, fillIntervalMs: quota.fillIntervalMs };
  });
}

function claim(client: ClientDemand, unitSeconds: number): Claim {
  return { client: client.client, demand: client.perSecond * unitSeconds };
}

/** The rate a strategy allows, in requests per second (Infinity for ALLOW_ALL), for the sums the tests check. */
export function allowedPerSecond(strategy: Strategy, unitSeconds: (unit: string) => number): number {
  switch (strategy.kind) {
    case 'blanket':
      return strategy.rule === 'ALLOW_ALL' ? Number.POSITIVE_INFINITY : 0;
    case 'requests_per_time_unit':
      return strategy.requests / unitSeconds(strategy.unit);
    case 'token_bucket':
      return strategy.tokensPerFill / (strategy.fillIntervalMs / 1000);
  }
}
