import type { StoreCapabilities } from '../backends/store.js';
import { ConfigError } from '../errors.js';
import type { Algorithm, AlgorithmParams } from '../protocol/algorithm.js';
import { parseUnit, type Unit, unitSeconds } from '../protocol/units.js';
import type { RateLimitBlock } from './document.js';
import type { Limit, RateLimitRule } from './tree.js';

const ALGORITHMS: readonly Algorithm[] = ['fixed_window', 'sliding_window', 'token_bucket'];
/**
 * The longest window, about 31 years: counters expire in whole seconds held in 32 bits, and a
 * token bucket's arithmetic stays in exact whole numbers.
 */
export const MAX_WINDOW_SECONDS = 1_000_000_000;
/** burst × window in ms must stay below 2^53, where a bucket's whole-number arithmetic is exact. */
const MAX_BUCKET_UNITS = Number.MAX_SAFE_INTEGER;

/**
 * The rule of a descriptor with `rate_limit` or `rate_limits`: the reference's checks for a
 * single block (with its error texts), then those of the new fields, each naming the descriptor.
 */
export function buildRule(
  fileName: string,
  fullKey: string,
  single: RateLimitBlock | undefined,
  list: readonly RateLimitBlock[] | undefined,
  shadowMode: boolean,
  store: StoreCapabilities | undefined,
): RateLimitRule | undefined {
  const fail = (message: string) => new ConfigError(fileName, `descriptor '${fullKey}': ${message}`);
  if (single && list) throw fail('rate_limit and rate_limits cannot both be set: use one of them');
  if (list?.length === 0) throw fail('rate_limits is empty: list at least one limit, or remove it');
  const blocks = list ?? (single ? [single] : []);
  if (blocks.length === 0) return undefined;
  for (const block of blocks) checkReferenceRules(fileName, block);
  if (list?.some((block) => block.unlimited)) {
    throw fail('unlimited cannot be used inside rate_limits: use rate_limit with unlimited: true');
  }
  const first = blocks[0] as RateLimitBlock;
  if (first.unlimited) {
    if (first.algorithm !== undefined || first.burst !== undefined || first.unitMultiplier !== undefined) {
      throw fail('an unlimited rate_limit takes no algorithm, burst or unit_multiplier');
    }
    return rule(fullKey, first, [], shadowMode);
  }
  const firstFixed = list ? list.findIndex((block) => algorithmOf(block) === 'fixed_window') : 0;
  const limits = blocks.map((block, index) =>
    buildLimit(block, list && index !== firstFixed ? `#${index}` : '', fail),
  );
  if (store) {
    const unsupported = limits.find((limit) => !store.algorithms.includes(limit.algorithm));
    if (unsupported) {
      throw fail(
        `algorithm ${unsupported.algorithm} is not available with the ${store.backend} backend, which counts ${store.algorithms.join(', ')} only: use BACKEND_TYPE=redis or memory, or drop the algorithm`,
      );
    }
  }
  return rule(fullKey, first, limits, shadowMode);
}

function rule(
  fullKey: string,
  first: RateLimitBlock,
  limits: readonly Limit[],
  shadowMode: boolean,
): RateLimitRule {
  const replaces =
    limits.length > 1 ? [...new Set(limits.flatMap((limit) => limit.replaces))] : first.replaces;
  return {
    fullKey,
    requestsPerUnit: first.requestsPerUnit,
    unit: limits[0]?.unit,
    unlimited: first.unlimited,
    limits,
    name: first.name,
    replaces,
    shadowMode,
  };
}

/** The reference's checks of one block, with its error texts. */
function checkReferenceRules(fileName: string, block: RateLimitBlock): void {
  const unit = parseUnit(block.unit);
  if (block.unlimited) {
    if (unit) throw new ConfigError(fileName, 'should not specify rate limit unit when unlimited');
  } else if (!unit) {
    throw new ConfigError(fileName, `invalid rate limit unit '${block.unit}'`);
  }
  for (const replaced of block.replaces) {
    if (replaced === '') throw new ConfigError(fileName, 'should not have an empty replaces entry');
    if (replaced === block.name) {
      throw new ConfigError(fileName, 'replaces should not contain name of same descriptor');
    }
  }
}

function algorithmOf(block: RateLimitBlock): Algorithm | undefined {
  if (block.algorithm === undefined) return 'fixed_window';
  const name = block.algorithm.toLowerCase();
  return (ALGORITHMS as readonly string[]).includes(name) ? (name as Algorithm) : undefined;
}

function buildLimit(block: RateLimitBlock, keyTag: string, fail: (message: string) => Error): Limit {
  const unit = parseUnit(block.unit) as Unit;
  const algorithm = algorithmOf(block);
  if (!algorithm) {
    throw fail(`unknown algorithm '${block.algorithm}': use fixed_window, sliding_window or token_bucket`);
  }
  const unitMultiplier = block.unitMultiplier === undefined ? 1 : wholeNumber(block.unitMultiplier);
  if (unitMultiplier === undefined || unitMultiplier < 1) {
    throw fail(`unit_multiplier must be a whole number of at least 1, got '${block.unitMultiplier}'`);
  }
  const windowSeconds = unitSeconds(unit) * unitMultiplier;
  if (windowSeconds > MAX_WINDOW_SECONDS) {
    throw fail(
      `unit × unit_multiplier is ${windowSeconds} seconds, longer than the longest window of ${MAX_WINDOW_SECONDS} seconds`,
    );
  }
  if (block.burst !== undefined && algorithm !== 'token_bucket') {
    throw fail(`burst applies to algorithm token_bucket only, not ${algorithm}`);
  }
  const threshold =
    algorithm === 'token_bucket' ? burstOf(block, windowSeconds, fail) : block.requestsPerUnit;
  return {
    algorithm,
    unit,
    unitMultiplier,
    requestsPerUnit: block.requestsPerUnit,
    windowSeconds,
    threshold,
    params: paramsOf(algorithm, windowSeconds * 1000, block.requestsPerUnit),
    keyTag,
    name: block.name,
    replaces: block.replaces,
  };
}

function burstOf(block: RateLimitBlock, windowSeconds: number, fail: (message: string) => Error): number {
  if (block.burst === undefined) return block.requestsPerUnit;
  const burst = wholeNumber(block.burst);
  if (burst === undefined || burst < 1) {
    throw fail(`burst must be a whole number of at least 1, got '${block.burst}'`);
  }
  if (block.requestsPerUnit === 0) {
    throw fail('a token_bucket with requests_per_unit 0 never refills: remove burst (every hit is refused)');
  }
  if (burst * windowSeconds * 1000 > MAX_BUCKET_UNITS) {
    throw fail(`burst ${burst} over a ${windowSeconds} s refill period is too large to count exactly`);
  }
  return burst;
}

function paramsOf(algorithm: Algorithm, windowMs: number, rate: number): AlgorithmParams | undefined {
  if (algorithm === 'sliding_window') return { kind: 'sliding_window', windowMs };
  if (algorithm === 'token_bucket') return { kind: 'token_bucket', windowMs, rate };
  return undefined;
}

/** A whole number as YAML writes one (decimal digits), else undefined. */
function wholeNumber(text: string): number | undefined {
  return /^\+?[0-9]+$/.test(text) ? Number(text) : undefined;
}

/** A fixed window of one unit, as a request's limit override gives it. */
export function fixedWindowLimit(unit: Unit, requestsPerUnit: number): Limit {
  return {
    algorithm: 'fixed_window',
    unit,
    unitMultiplier: 1,
    requestsPerUnit,
    windowSeconds: unitSeconds(unit),
    threshold: requestsPerUnit,
    params: undefined,
    keyTag: '',
    name: '',
    replaces: [],
  };
}
