import type { EndpointsError } from '../errors.js';

/** Why a file or an export under a prefix was not mounted. */
export type SkipReason =
  | 'ignored file pattern'
  | 'outside the prefix'
  | 'duplicate module'
  | 'import error'
  | 'private name'
  | 'not a Controller subclass'
  | 'not exported'
  | 'duplicate route';

export interface SkippedEntry {
  /** Path relative to the working directory. */
  readonly file: string;
  /** The export (or declared class) concerned; absent when the whole file was skipped. */
  readonly name?: string;
  readonly reason: SkipReason;
  /** One line saying what matched, or the error. */
  readonly detail: string;
}

/**
 * Everything discovery passed over. Startup (`createApp`) is strict: a duplicate module, an import
 * error or a duplicate route fails it. A survey (`endpoints routes`) records those too and goes on,
 * so one broken file does not hide the rest of the table.
 */
export class DiscoveryReport {
  readonly #skipped: SkippedEntry[] = [];
  #deferred: (() => void)[] = [];
  readonly survey: boolean;

  constructor(survey: boolean) {
    this.survey = survey;
  }

  /** Everything skipped; the deferred findings are made on first use. */
  get skipped(): readonly SkippedEntry[] {
    const deferred = this.#deferred;
    this.#deferred = [];
    for (const find of deferred) find();
    return this.#skipped;
  }

  /** Findings that cost work startup does not need (reading module sources): made only when asked for. */
  defer(find: () => void): void {
    this.#deferred.push(find);
  }

  skip(entry: SkippedEntry): void {
    this.#skipped.push(entry);
  }

  /** A problem that fails startup; recorded instead when surveying. */
  fail(entry: SkippedEntry, error: EndpointsError): void {
    if (!this.survey) throw error;
    this.#skipped.push(entry);
  }
}
