import { SettingsError } from '../../errors.js';

/** One DOG_STATSD_MOGRIFIER_<NAME>_*: a regex on the stat name, and the name and tags to emit instead. */
export interface MogrifierSpec {
  readonly id: string;
  readonly pattern: string;
  /** May use `$0`, `$1`, ... group references. */
  readonly name: string;
  /** tag key -> value; values may use group references. */
  readonly tags: Readonly<Record<string, string>>;
}

export interface Mogrified {
  readonly name: string;
  readonly tags: readonly string[];
}

interface CompiledMogrifier {
  readonly regex: RegExp;
  readonly rename: (groups: RegExpExecArray) => string;
  readonly tags: ReadonlyArray<readonly [string, (groups: RegExpExecArray) => string]>;
}

const groupReference = /\$(\d+)/g;

function countGroups(regex: RegExp): number {
  // An alternation with the empty pattern always matches; its result has one slot per group.
  return (new RegExp(`${regex.source}|`).exec('')?.length ?? 1) - 1;
}

function template(spec: MogrifierSpec, setting: string, text: string, groups: number) {
  for (const [, index] of text.matchAll(groupReference)) {
    if (Number(index) > groups) {
      throw new SettingsError(
        setting,
        `$${index} refers to a group that the pattern '${spec.pattern}' does not have`,
      );
    }
  }
  return (match: RegExpExecArray) =>
    text.replace(groupReference, (_, index: string) => match[Number(index)] ?? '');
}

function compile(spec: MogrifierSpec): CompiledMogrifier {
  const prefix = `DOG_STATSD_MOGRIFIER_${spec.id}`;
  if (spec.pattern === '')
    throw new SettingsError(`${prefix}_PATTERN`, `no PATTERN specified for mogrifier ${spec.id}`);
  if (spec.name === '')
    throw new SettingsError(`${prefix}_NAME`, `no NAME specified for mogrifier ${spec.id}`);
  let regex: RegExp;
  try {
    regex = new RegExp(spec.pattern);
  } catch (error) {
    throw new SettingsError(
      `${prefix}_PATTERN`,
      `failed to compile pattern '${spec.pattern}': ${(error as Error).message}`,
    );
  }
  const groups = countGroups(regex);
  const tags = Object.entries(spec.tags).map(([key, value]) => {
    if (key === '' || value === '') {
      throw new SettingsError(`${prefix}_TAGS`, `tag '${key}:${value}' needs both a key and a value`);
    }
    return [key, template(spec, `${prefix}_TAGS`, value, groups)] as const;
  });
  return { regex, rename: template(spec, `${prefix}_NAME`, spec.name, groups), tags };
}

/**
 * Renames stats for DogStatsD: the first mogrifier (in USE_DOG_STATSD_MOGRIFIERS order) whose pattern
 * matches decides the emitted name and adds its tags; a stat no pattern matches keeps its name.
 */
export class Mogrifiers {
  readonly #compiled: readonly CompiledMogrifier[];

  constructor(specs: readonly MogrifierSpec[]) {
    this.#compiled = specs.map(compile);
  }

  apply(name: string): Mogrified {
    for (const mogrifier of this.#compiled) {
      const match = mogrifier.regex.exec(name);
      if (!match) continue;
      return {
        name: mogrifier.rename(match),
        tags: mogrifier.tags.map(([key, value]) => `${key}:${value(match)}`),
      };
    }
    return { name, tags: [] };
  }
}

/** Parses `k1:v1,k2:v2` (EXTRA_TAGS, mogrifier TAGS); the value may itself contain `:`. */
export function parseTagPairs(setting: string, text: string): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const colon = pair.indexOf(':');
    if (colon <= 0) throw new SettingsError(setting, `'${pair}' is not a key:value pair`);
    tags[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
  }
  return tags;
}
