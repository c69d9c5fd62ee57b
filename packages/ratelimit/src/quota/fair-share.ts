/**
 * Fair shares of one bucket's quota among the clients reporting it. Pure arithmetic; the service
 * calls it with every live client's demand, the same list on every instance that shares a store.
 *
 * The algorithm (README, "Sharing the quota"), for a quota of `total` per unit and N clients:
 * 1. Each client's want is its recent demand, but at least the floor, total / (2N): half of an
 *    equal share is reserved for every client, so a new or quiet client is never starved.
 * 2. When the wants fit in the total, each client gets its want plus an equal part of what is
 *    left (room to grow until the next rebalance). Otherwise the total is filled like water
 *    (max-min fairness): every client gets min(want, level), with the level at which the shares
 *    add up to the total. The level is at least the floor, since N floors are half the total.
 * 3. The real shares become whole numbers by the largest-remainder method (ties by client
 *    order), so they add up to exactly the whole total and never more.
 */

export interface Claim {
  /** The client's id in the store; the order of claims is the order of clients (ties). */
  readonly client: string;
  /** Requests per unit of the quota the client wants: its recent demand. */
  readonly demand: number;
}

/** Real-valued shares of `total` for the claims, in claim order, adding up to `total`. */
export function fairShares(total: number, claims: readonly Claim[]): number[] {
  const count = claims.length;
  if (count === 0) return [];
  const floor = total / (2 * count);
  const wants = claims.map((claim) => Math.max(sane(claim.demand), floor));
  const wanted = wants.reduce((sum, want) => sum + want, 0);
  if (wanted <= total) {
    const spare = (total - wanted) / count;
    return wants.map((want) => want + spare);
  }
  const level = waterLevel(total, wants);
  return wants.map((want) => Math.min(want, level));
}

/** The level L at which the sum of min(want, L) is `total` (the wants add up to more). */
function waterLevel(total: number, wants: readonly number[]): number {
  const sorted = [...wants].sort((a, b) => a - b);
  let left = total;
  for (let i = 0; i < sorted.length; i++) {
    const remaining = sorted.length - i;
    const even = left / remaining;
    if ((sorted[i] as number) >= even) return even;
    left -= sorted[i] as number;
  }
  return sorted[sorted.length - 1] as number;
}

/** A demand that is not a finite non-negative number counts as 0 (a client cannot claim more by lying with NaN). */
function sane(demand: number): number {
  return Number.isFinite(demand) && demand > 0 ? demand : 0;
}

/**
 * Whole numbers for `weights` (real shares) out of a whole `total`: each weight's part of the
 * total rounded down, then the units left one each to the largest remainders (the first on ties).
 * The result adds up to at most `total`, and to exactly `total` when the weights are positive.
 */
export function apportion(total: number, weights: readonly number[]): number[] {
  const whole = Math.floor(total);
  const sum = weights.reduce((acc, weight) => acc + weight, 0);
  if (weights.length === 0 || !(sum > 0) || whole <= 0) return weights.map(() => 0);
  const exact = weights.map((weight) => (weight / sum) * whole);
  const parts = exact.map((value) => Math.floor(value));
  let left = whole - parts.reduce((acc, part) => acc + part, 0);
  const order = exact
    .map((_, index) => index)
    .sort((a, b) => {
      const byRemainder =
        (exact[b] as number) - (parts[b] as number) - ((exact[a] as number) - (parts[a] as number));
      return byRemainder !== 0 ? byRemainder : a - b;
    });
  for (const index of order) {
    if (left <= 0) break;
    parts[index] = (parts[index] as number) + 1;
    left--;
  }
  return parts;
}
