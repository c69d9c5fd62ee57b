import { ServiceError } from '../errors.js';
import type { RequestDescriptor } from '../protocol/messages.js';
import { OVERRIDE_UNIT_NAMES, overrideUnit } from '../protocol/units.js';
import { fixedWindowLimit } from './limits.js';
import type { LimitMatch } from './tree.js';

/**
 * The rule a request's limit override makes, built at request time from the descriptor (it is
 * config the client sends): stat key `<domain>.<k1>[_<v1>]...`, never shadowed, no name.
 */
export function overrideMatch(domain: string, descriptor: RequestDescriptor): LimitMatch {
  const override = descriptor.limit as NonNullable<RequestDescriptor['limit']>;
  const unit = typeof override.unit === 'string' ? overrideUnit(override.unit) : undefined;
  if (!unit) {
    throw new ServiceError(
      `invalid rate limit unit '${override.unit}' in the descriptor's limit override: use ${OVERRIDE_UNIT_NAMES.slice(1).join(', ')}`,
    );
  }
  let statKey = domain;
  for (const entry of descriptor.entries) {
    statKey += entry.value === '' ? `.${entry.key}` : `.${entry.key}_${entry.value}`;
  }
  return {
    rule: {
      fullKey: statKey,
      requestsPerUnit: override.requestsPerUnit,
      unit,
      unlimited: false,
      limits: [fixedWindowLimit(unit, override.requestsPerUnit)],
      name: '',
      replaces: [],
      shadowMode: false,
    },
    statKey,
    sharedValues: undefined,
  };
}
