import { type Unit, unitSeconds } from '../protocol/units.js';

/** Start of the epoch-aligned window of `windowSeconds` holding `nowSeconds` (integer Unix seconds). */
export function windowStartOf(nowSeconds: number, windowSeconds: number): number {
  return Math.floor(nowSeconds / windowSeconds) * windowSeconds;
}

/** Whole seconds left in the window of `windowSeconds` holding `nowSeconds`: `window - now % window`. */
export function secondsLeftIn(nowSeconds: number, windowSeconds: number): number {
  return windowSeconds - (nowSeconds % windowSeconds);
}

/** Start of the epoch-aligned window of one `unit` holding `nowSeconds`. */
export function windowStart(nowSeconds: number, unit: Unit): number {
  return windowStartOf(nowSeconds, unitSeconds(unit));
}

/** Whole seconds left in the window of one `unit` holding `nowSeconds`. */
export function secondsUntilReset(nowSeconds: number, unit: Unit): number {
  return secondsLeftIn(nowSeconds, unitSeconds(unit));
}
