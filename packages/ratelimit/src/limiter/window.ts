import { type Unit, unitSeconds } from './units.js';

/** Start of the epoch-aligned window holding `nowSeconds` (integer Unix seconds). */
export function windowStart(nowSeconds: number, unit: Unit): number {
  const divider = unitSeconds(unit);
  return Math.floor(nowSeconds / divider) * divider;
}

/** Whole seconds left in the window holding `nowSeconds`: `divider - now % divider`. */
export function secondsUntilReset(nowSeconds: number, unit: Unit): number {
  const divider = unitSeconds(unit);
  return divider - (nowSeconds % divider);
}
