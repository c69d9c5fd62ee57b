import type { DemandEntry, DemandStore, DemandWrite } from '../backends/demand.js';
import { bucketDescriptor, matchBucket } from '../config/bucket-match.js';
import type { RateLimitConfig } from '../config/tree.js';
import type { Logger } from '../log.js';
import type { Entry } from '../protocol/messages.js';
import { assign } from '../quota/assign.js';
import { allowsAtLeast, type BucketQuota, quotaOf, type Strategy, sameStrategy } from '../quota/strategy.js';
import { sanitizeStatName } from '../stats/names.js';
import type { Counter, StatStore } from '../stats/store.js';
import {
  type BucketAction,
  type BucketPairs,
  type BucketUsage,
  QuotaStreamError,
  type UsageReport,
} from './quota-messages.js';

/** The RLQS_* settings. */
export interface QuotaOptions {
  /** RLQS_MAX_STREAMS: open streams on this instance. */
  readonly maxStreams: number;
  /** RLQS_MAX_BUCKETS_PER_STREAM: buckets one stream may subscribe to. */
  readonly maxBucketsPerStream: number;
  /** RLQS_MAX_BUCKETS: distinct buckets this instance tracks, over all its streams. */
  readonly maxBuckets: number;
  /** RLQS_ASSIGNMENT_TTL: assignment_time_to_live of every assignment. */
  readonly assignmentTtlMs: number;
  /** RLQS_ABANDON_AFTER: a bucket a stream has not reported for this long is abandoned. */
  readonly abandonAfterMs: number;
  /** RLQS_REBALANCE_INTERVAL: how often every bucket is shared out again. */
  readonly rebalanceIntervalMs: number;
}

/** Where a stream's actions go: the gRPC call, in the server layer. */
export interface QuotaSink {
  send(actions: readonly BucketAction[]): void;
  /** Ends the stream with an OK status (shutdown). */
  end(): void;
}

/** How long a shared store keeps the entries of an instance that stopped writing, in rebalance intervals: two ticks may be missed. */
const ENTRY_TTL_INTERVALS = 3;
/**
 * A report whose buckets are all assigned, under the config they were shared out with, and whose
 * demands moved by less than this fraction since they were last shared out, is settled: it costs
 * no store round trip, and is answered (with the strategies in force, renewing their TTL) only
 * when a third of their TTL has passed; the next rebalance shares the new demands out. Envoy's counts wobble from one report to the next: without this every
 * report would cost a store call and a share-out of each of its buckets.
 */
const DEMAND_TOLERANCE = 0.1;

interface Subscription {
  readonly key: string;
  readonly stream: QuotaStream;
  readonly pairs: BucketPairs;
  /** The pairs arrays reports have named this bucket by (the codec keeps one per distinct BucketId bytes). */
  readonly aliases: BucketPairs[];
  readonly bucket: Bucket;
  /** The number of the stream's report that last named it, to find a bucket a report names twice. */
  namedIn: number;
  perSecond: number;
  /**
   * The demand last written to the store (NaN before the first): a report that moves it less than
   * DEMAND_TOLERANCE is only renewed. The store is written only when `perSecond` differs from it.
   */
  sharedPerSecond: number;
  lastReportMs: number;
  /** The strategy last sent, to send again only on a change, when its renewal is due, or with TTL 0. */
  sent: Strategy | undefined;
  /** A larger strategy than `sent`, shared out since, that waits for the next rebalance (or the next send). */
  due: Strategy | undefined;
  /** When the strategy was last sent, and with which time to live: a report renews it once a third of that has passed. */
  sentAtMs: number;
  sentTtlMs: number;
}

/** One open stream: its client id in the demand store, its domain once named, its buckets. */
export interface QuotaStream {
  readonly id: number;
  readonly client: string;
  readonly sink: QuotaSink;
  domain: string | undefined;
  readonly subscriptions: Map<string, Subscription>;
  /** The same subscriptions by the pairs arrays reports name them by: a known bucket is found without building its key. */
  readonly byPairs: Map<BucketPairs, Subscription>;
  /** The stream's last answer to a report, sent again as it is while nothing in it changed. */
  lastAnswer: Answer | undefined;
  /** Reports taken, numbering them for Subscription.namedIn. */
  reportsTaken: number;
  /**
   * At most the last report time of each of its buckets (reports only move those later): a
   * rebalance looks through the stream's buckets for idle ones only when this is old enough.
   */
  oldestReportMs: number;
  /** The stats of the stream's domain under the config they were looked up in. */
  domainStats: { readonly config: RateLimitConfig | undefined; readonly stats: DomainStats } | undefined;
  closed: boolean;
}

interface Answer {
  readonly subscriptions: readonly Subscription[];
  readonly actions: readonly BucketAction[];
  readonly ttlMs: number;
}

/** The aliases a subscription keeps at most: a client naming one bucket by ever more key orders gets no more. */
const MAX_ALIASES = 4;

/** A bucket of this instance with the streams that report it. */
interface Bucket {
  readonly domain: string;
  readonly descriptor: readonly Entry[];
  readonly streams: Set<QuotaStream>;
  /** Its subscriptions whose demand moved since it was last written to the store: the writes of its next share-out. */
  readonly unwritten: Set<Subscription>;
  /** The config the bucket was last shared out with: after a reload a report shares it out again. */
  sharedWith: RateLimitConfig | undefined;
  /** The bucket's quota under the config it was looked up in: a rebalance looks it up again only after a reload. */
  quota: { readonly config: RateLimitConfig | undefined; readonly quota: BucketQuota } | undefined;
  /** The demands and quota it was last shared out with: the same again give the same shares, sent already. */
  sharedOut: { readonly entries: readonly DemandEntry[]; readonly quota: BucketQuota } | undefined;
}

/** A bucket a report names that its stream has not subscribed to yet. */
interface Named {
  readonly key: string;
  readonly pairs: BucketPairs;
  readonly descriptor: readonly Entry[];
}

interface DomainStats {
  readonly streams: Counter;
  readonly reports: Counter;
  readonly assignments: Counter;
  readonly abandons: Counter;
}

/** Stats root: `ratelimit.service.rlqs.<domain>.{streams,reports,assignments,abandons}` and the instance's own. */
export const RLQS_STAT_ROOT = 'ratelimit.service.rlqs.';

/**
 * The Rate Limit Quota Service: streams subscribe to buckets by reporting them, each bucket is
 * looked up in the config in force (config/bucket-match.ts) and its quota shared out among every
 * client reporting it (quota/), with the clients' demand kept in the demand store so that
 * instances on one Redis share out alike. A client is sent a bucket's strategy when it first
 * reports it, when its own report or a smaller share changes it, a larger share with the next
 * rebalance, and, renewing its TTL, on a report once a third of that TTL has passed; every
 * RLQS_REBALANCE_INTERVAL the buckets are shared out again and idle buckets abandoned.
 */
export class QuotaService {
  /** Open streams by client id. */
  private readonly streams = new Map<string, QuotaStream>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly domainStats = new Map<string, DomainStats>();
  private readonly refusedStreams: Counter;
  private readonly storeErrors: Counter;
  private nextStreamId = 1;
  private draining = false;
  private timer: NodeJS.Timeout | undefined;
  private rebalancing: Promise<void> | undefined;
  private stopping = false;
  /** The subscriptions with a larger strategy due, sent by the next rebalance. */
  private readonly deferred = new Set<Subscription>();
  /** Buckets a client's demand moved in since they were last shared out. */
  private readonly moved = new Set<string>();
  /** The config of the last rebalance that looked for buckets shared out under another. */
  private sweptConfig: RateLimitConfig | undefined;
  /** Removals (and share-outs) of closed streams still under way. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly config: { readonly current: RateLimitConfig | undefined },
    private readonly demand: DemandStore,
    private readonly stats: StatStore,
    private readonly log: Logger,
    private readonly options: QuotaOptions & { readonly globalShadowMode: boolean },
    private readonly nowMs: () => number,
    /** Unique per running instance: the prefix of its clients' ids in a shared store. */
    private readonly instanceId: string,
  ) {
    this.refusedStreams = stats.counter(`${RLQS_STAT_ROOT}refused_streams`);
    this.storeErrors = stats.counter(`${RLQS_STAT_ROOT}store_error`);
    stats.addGaugeSource(() => [
      [`${RLQS_STAT_ROOT}open_streams`, this.streams.size],
      [`${RLQS_STAT_ROOT}buckets`, this.buckets.size],
    ]);
  }

  /** Starts the rebalance timer. */
  start(): void {
    this.timer = setInterval(() => void this.rebalance(), this.options.rebalanceIntervalMs);
    this.timer.unref();
  }

  /** Opens a stream; throws RESOURCE_EXHAUSTED past RLQS_MAX_STREAMS. */
  open(sink: QuotaSink): QuotaStream {
    if (this.streams.size >= this.options.maxStreams) {
      this.refusedStreams.inc();
      throw new QuotaStreamError(
        'RESOURCE_EXHAUSTED',
        `this instance has ${this.options.maxStreams} open quota streams (RLQS_MAX_STREAMS): retry later or on another instance`,
      );
    }
    const id = this.nextStreamId++;
    const stream: QuotaStream = {
      id,
      client: `${this.instanceId}/${id}`,
      sink,
      domain: undefined,
      subscriptions: new Map(),
      byPairs: new Map(),
      lastAnswer: undefined,
      reportsTaken: 0,
      oldestReportMs: this.nowMs(),
      domainStats: undefined,
      closed: false,
    };
    this.streams.set(stream.client, stream);
    return stream;
  }

  /**
   * Takes one report: subscribes its new buckets and answers with the assignments of every bucket
   * it names. Throws a QuotaStreamError (before any state changes) for a report the stream must be
   * ended for; a store failure is counted and logged, and the stream goes on. A report answered
   * with the strategies in force is done on return; one that needs a share-out returns its promise.
   */
  report(stream: QuotaStream, report: UsageReport): Promise<void> | undefined {
    if (stream.closed) return;
    const domain = this.domainOf(stream, report);
    const now = this.nowMs();
    // The buckets the stream knows by these pairs arrays; the others are looked for by key, and
    // the bounds checked for the new ones, before anything changes.
    const usages = report.usages;
    const named = new Array<Subscription | undefined>(usages.length);
    let unknown = false;
    for (let i = 0; i < usages.length; i++) {
      named[i] = stream.byPairs.get((usages[i] as BucketUsage).bucket);
      if (!named[i]) unknown = true;
    }
    const fresh = unknown ? this.freshBuckets(stream, domain, usages) : undefined;
    if (fresh) this.checkBounds(stream, fresh);
    if (stream.domain === undefined) {
      stream.domain = domain;
      this.statsOf(stream).streams.inc();
    }
    this.statsOf(stream).reports.inc();
    if (fresh) for (const named of fresh.values()) this.subscribe(stream, domain, named);
    // A bucket named twice in one report counts the usage of its last mention.
    const number = ++stream.reportsTaken;
    let distinct = true;
    for (let i = 0; i < usages.length; i++) {
      const usage = usages[i] as BucketUsage;
      const subscription = named[i] ?? this.subscriptionOf(stream, domain, usage.bucket);
      if (subscription.namedIn === number) distinct = false;
      subscription.namedIn = number;
      subscription.perSecond = ((usage.allowed + usage.denied) * 1000) / usage.elapsedMs;
      if (subscription.perSecond !== subscription.sharedPerSecond) {
        this.moved.add(subscription.key);
        subscription.bucket.unwritten.add(subscription);
      }
      subscription.lastReportMs = now;
      named[i] = subscription;
    }
    const subscriptions = (distinct ? named : [...new Set(named)]) as Subscription[];
    // Only the buckets whose demand moved beyond DEMAND_TOLERANCE are shared out now; the others'
    // small moves wait for the next rebalance, as they do when the whole report is settled.
    const unsettled: string[] = [];
    for (const subscription of subscriptions) {
      if (!this.isSettled(subscription)) unsettled.push(subscription.key);
    }
    if (this.demand.shared) this.holdDemands(stream, subscriptions, now);
    if (unsettled.length === 0) {
      if (subscriptions.some((subscription) => this.renewalDue(subscription, now))) {
        this.renew(stream, subscriptions, now);
      }
      return;
    }
    return this.shareOut(unsettled, { stream, subscriptions });
  }

  /** The buckets of `usages` the stream has not subscribed to, by key; undefined when there are none. */
  private freshBuckets(
    stream: QuotaStream,
    domain: string,
    usages: readonly BucketUsage[],
  ): Map<string, Named> | undefined {
    let fresh: Map<string, Named> | undefined;
    for (const usage of usages) {
      if (stream.byPairs.has(usage.bucket)) continue;
      const descriptor = bucketDescriptor(usage.bucket);
      const key = bucketKey(domain, descriptor);
      if (stream.subscriptions.has(key)) continue;
      fresh ??= new Map();
      if (!fresh.has(key)) fresh.set(key, { key, pairs: usage.bucket, descriptor });
    }
    return fresh;
  }

  /** The stream's subscription to the bucket `pairs` names (subscribed already). */
  private subscriptionOf(stream: QuotaStream, domain: string, pairs: BucketPairs): Subscription {
    const known = stream.byPairs.get(pairs);
    if (known) return known;
    const subscription = stream.subscriptions.get(bucketKey(domain, bucketDescriptor(pairs))) as Subscription;
    if (subscription.aliases.length < MAX_ALIASES) {
      subscription.aliases.push(pairs);
      stream.byPairs.set(pairs, subscription);
    }
    return subscription;
  }

  /** The stream ended: its buckets are freed in the store and shared out again among the others. */
  close(stream: QuotaStream): void {
    if (stream.closed) return;
    stream.closed = true;
    this.streams.delete(stream.client);
    const keys = [...stream.subscriptions.keys()];
    const removals = keys.map((key) => this.unsubscribe(stream, key));
    const removed = this.demand.remove(removals);
    // While stopping, every stream closes: there is no one left here to share out to.
    const done = this.stopping ? removed : removed.then(() => this.shareOut(keys, undefined));
    this.pending.add(done);
    void done.catch((error: unknown) => this.storeFailed(error)).finally(() => this.pending.delete(done));
  }

  /**
   * One rebalance: abandons the buckets each stream has not reported for RLQS_ABANDON_AFTER,
   * then shares out every bucket again and sends each client whose share changed its new one.
   * Runs on the timer; tests call it to stand for one interval. Overlapping calls share one run.
   */
  rebalance(): Promise<void> {
    this.rebalancing ??= this.runRebalance().finally(() => {
      this.rebalancing = undefined;
    });
    return this.rebalancing;
  }

  /**
   * SIGTERM: every open stream is sent its assignments again with a time to live of 0, so its
   * clients fall back to their own configured behaviour now rather than enforce a stale share
   * after this instance is gone; reports from now on are answered with TTL 0 too.
   */
  expireAll(): void {
    this.draining = true;
    for (const stream of this.streams.values()) {
      const actions: BucketAction[] = [];
      for (const subscription of stream.subscriptions.values()) {
        if (subscription.sent) actions.push(this.assignment(subscription, this.nowMs()));
      }
      this.send(stream, actions);
    }
  }

  /** Stops the timer and ends every open stream (a graceful gRPC stop waits for open calls). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    for (const stream of [...this.streams.values()]) {
      this.close(stream);
      stream.sink.end();
    }
    // This instance's clients leave the store before it closes, so the others' shares grow at once.
    await Promise.allSettled([this.rebalancing, ...this.pending]);
  }

  /** Open streams, for tests and stats. */
  get openStreams(): number {
    return this.streams.size;
  }

  private async runRebalance(): Promise<void> {
    const now = this.nowMs();
    const removals: { bucket: string; client: string }[] = [];
    for (const stream of this.streams.values()) {
      if (now - stream.oldestReportMs < this.options.abandonAfterMs) continue;
      const abandoned: BucketAction[] = [];
      let oldest = now;
      for (const subscription of stream.subscriptions.values()) {
        if (now - subscription.lastReportMs < this.options.abandonAfterMs) {
          oldest = Math.min(oldest, subscription.lastReportMs);
          continue;
        }
        abandoned.push({ kind: 'abandon', bucket: subscription.pairs });
        removals.push(this.unsubscribe(stream, subscription.key));
      }
      stream.oldestReportMs = oldest;
      if (abandoned.length > 0) {
        this.statsOf(stream).abandons.inc(abandoned.length);
        stream.sink.send(abandoned);
      }
    }
    try {
      if (removals.length > 0) await this.demand.remove(removals);
      await this.shareOut(this.demand.shared ? [...this.buckets.keys()] : this.changedBuckets(), undefined);
    } catch (error) {
      this.storeFailed(error);
    }
    const outbox = new Map<QuotaStream, BucketAction[]>();
    const at = this.nowMs();
    for (const subscription of this.deferred) {
      addAssignment(outbox, subscription.stream, this.assignment(subscription, at));
    }
    this.sendOutbox(outbox);
  }

  /**
   * Writes this instance's clients' demand for `keys`, reads every client's, and sends each local
   * client its share when it changed. The `reporter`'s buckets whose renewal is due are sent too.
   */
  private async shareOut(keys: readonly string[], reporter: Reporter | undefined): Promise<void> {
    for (const key of keys) this.moved.delete(key);
    const live = keys.filter((key) => this.buckets.has(key));
    if (live.length === 0) return;
    const writes: DemandWrite[] = [];
    for (const key of live) this.takeUnwritten(this.buckets.get(key) as Bucket, undefined, writes);
    let demands: Awaited<ReturnType<DemandStore['exchange']>>;
    try {
      demands = await this.demand.exchange(
        writes,
        live,
        this.nowMs(),
        this.options.rebalanceIntervalMs * ENTRY_TTL_INTERVALS,
      );
    } catch (error) {
      // The next rebalance tries these buckets again.
      for (const key of live) this.moved.add(key);
      this.storeFailed(error);
      return;
    }
    const outbox = new Map<QuotaStream, BucketAction[]>();
    const config = this.config.current;
    const now = this.nowMs();
    /** The subscriptions sent a new strategy here, which their reporter need not renew. */
    const changed = new Set<Subscription>();
    live.forEach((key, i) => {
      const bucket = this.buckets.get(key);
      if (!bucket) return;
      bucket.sharedWith = config;
      const entries = demands[i] ?? [];
      const quota = this.quotaOf(bucket, config);
      if (bucket.sharedOut?.quota === quota && sameEntries(bucket.sharedOut.entries, entries)) return;
      bucket.sharedOut = { entries, quota };
      const strategies = assign(quota, entries);
      entries.forEach((entry, j) => {
        // The entries of other instances' clients are shared out here too, and sent there.
        const stream = this.streams.get(entry.client);
        const subscription = stream?.subscriptions.get(key);
        if (!stream || !subscription) return;
        const strategy = strategies[j] as Strategy;
        if (sameStrategy(strategy, subscription.sent)) {
          this.undefer(subscription);
          return;
        }
        // A larger share that another client's report brings only leaves part of the limit unused
        // until it arrives: it waits for the next rebalance, so a client whose share others'
        // reports move up several times in one interval is sent it once. A smaller one goes at
        // once, so that the shares in force never add up to more than the limit, and so do the
        // reporter's own, which its report awaits, and what a closed stream or a rebalance frees.
        if (
          reporter &&
          stream !== reporter.stream &&
          subscription.sent &&
          allowsAtLeast(strategy, subscription.sent)
        ) {
          subscription.due = strategy;
          this.deferred.add(subscription);
          return;
        }
        subscription.sent = strategy;
        this.undefer(subscription);
        changed.add(subscription);
        addAssignment(outbox, stream, this.assignment(subscription, now));
      });
    });
    if (reporter && !reporter.stream.closed) {
      for (const subscription of reporter.subscriptions) {
        if (subscription.sent && !changed.has(subscription) && this.renewalDue(subscription, now)) {
          addAssignment(outbox, reporter.stream, this.assignment(subscription, now));
        }
      }
    }
    this.sendOutbox(outbox);
  }

  private sendOutbox(outbox: ReadonlyMap<QuotaStream, readonly BucketAction[]>): void {
    for (const [stream, actions] of outbox) {
      this.send(stream, actions);
      this.statsOf(stream).assignments.inc(actions.length);
    }
  }

  /** Drops the larger strategy a subscription had waiting: it is sent now, or no longer in force. */
  private undefer(subscription: Subscription): void {
    if (subscription.due === undefined) return;
    subscription.due = undefined;
    this.deferred.delete(subscription);
  }

  /** Makes a waiting larger strategy the one in force, as it is about to be sent. */
  private promote(subscription: Subscription): void {
    if (subscription.due === undefined) return;
    subscription.sent = subscription.due;
    this.undefer(subscription);
  }

  /** The bucket's quota under `config`. */
  private quotaOf(bucket: Bucket, config: RateLimitConfig | undefined): BucketQuota {
    if (bucket.quota?.config !== config) {
      const quota = quotaOf(
        matchBucket(config, bucket.domain, bucket.descriptor),
        this.options.globalShadowMode,
      );
      bucket.quota = { config, quota };
    }
    return (bucket.quota as { quota: BucketQuota }).quota;
  }

  /**
   * The buckets to share out again when no other instance writes the store: after a reload every
   * bucket shared out under another config, otherwise those a client's demand moved in since they
   * last were (joins and leaves share out at once).
   */
  private changedBuckets(): string[] {
    const config = this.config.current;
    if (config === this.sweptConfig) return [...this.moved];
    this.sweptConfig = config;
    const keys = new Set(this.moved);
    for (const [key, bucket] of this.buckets) if (bucket.sharedWith !== config) keys.add(key);
    return [...keys];
  }

  /** Whether a report of this bucket can be answered with the strategy in force (DEMAND_TOLERANCE). */
  private isSettled(subscription: Subscription): boolean {
    if (!subscription.sent || subscription.bucket.sharedWith !== this.config.current) return false;
    const before = subscription.sharedPerSecond;
    return Math.abs(subscription.perSecond - before) <= DEMAND_TOLERANCE * Math.max(before, 1);
  }

  /**
   * In a store other instances share, a report's demands that moved are written (not waited for),
   * so that every instance's next rebalance shares out the same demands; a store of this instance
   * alone is written by the share-out of each bucket whose demand moved.
   */
  private holdDemands(stream: QuotaStream, subscriptions: readonly Subscription[], nowMs: number): void {
    const writes: DemandWrite[] = [];
    for (const subscription of subscriptions) this.takeUnwritten(subscription.bucket, stream, writes);
    if (writes.length === 0) return;
    this.demand
      .write(writes, nowMs, this.options.rebalanceIntervalMs * ENTRY_TTL_INTERVALS)
      .catch((error: unknown) => this.storeFailed(error));
  }

  /**
   * Adds to `writes` the demands of the bucket's subscriptions (of `stream` only, when given) that
   * moved since they were written, and counts them written: the store is given changes only.
   */
  private takeUnwritten(bucket: Bucket, stream: QuotaStream | undefined, writes: DemandWrite[]): void {
    for (const subscription of bucket.unwritten) {
      if (stream && subscription.stream !== stream) continue;
      bucket.unwritten.delete(subscription);
      writes.push({
        bucket: subscription.key,
        client: subscription.stream.client,
        perSecond: subscription.perSecond,
      });
      subscription.sharedPerSecond = subscription.perSecond;
    }
  }

  /**
   * Whether a report of this bucket is answered with its strategy again: once a third of the time
   * to live it was last sent with has passed (at once after a TTL of 0, while draining). Envoy
   * needs no answer per report; the same strategy again only extends its time to live.
   */
  private renewalDue(subscription: Subscription, nowMs: number): boolean {
    return nowMs - subscription.sentAtMs >= subscription.sentTtlMs / 3;
  }

  /** The assignment of the subscription's strategy in force, sent now: it records when and with which TTL. */
  private assignment(subscription: Subscription, nowMs: number): BucketAction {
    this.promote(subscription);
    const ttlMs = this.draining ? 0 : this.options.assignmentTtlMs;
    subscription.sentAtMs = nowMs;
    subscription.sentTtlMs = ttlMs;
    return { kind: 'assign', bucket: subscription.pairs, strategy: subscription.sent as Strategy, ttlMs };
  }

  /**
   * Answers a settled report whose renewal is due with the strategies in force of all its buckets,
   * renewing their time to live together. A stream reporting the same buckets with the same
   * strategies is sent its last answer again, which the codec does not encode again.
   */
  private renew(stream: QuotaStream, subscriptions: readonly Subscription[], nowMs: number): void {
    const ttlMs = this.draining ? 0 : this.options.assignmentTtlMs;
    for (const subscription of subscriptions) {
      this.promote(subscription);
      subscription.sentAtMs = nowMs;
      subscription.sentTtlMs = ttlMs;
    }
    let answer = stream.lastAnswer;
    if (!answer || !isSameAnswer(answer, subscriptions, ttlMs)) {
      answer = {
        subscriptions,
        ttlMs,
        actions: subscriptions.map((subscription) => ({
          kind: 'assign',
          bucket: subscription.pairs,
          strategy: subscription.sent as Strategy,
          ttlMs,
        })),
      };
      stream.lastAnswer = answer;
    }
    this.send(stream, answer.actions);
    this.statsOf(stream).assignments.inc(answer.actions.length);
  }

  private send(stream: QuotaStream, actions: readonly BucketAction[]): void {
    if (!stream.closed && actions.length > 0) stream.sink.send(actions);
  }

  /** The stream's domain: named by its first report; a later report may repeat it or leave it out. */
  private domainOf(stream: QuotaStream, report: UsageReport): string {
    if (stream.domain === undefined) {
      if (report.domain === '') {
        throw new QuotaStreamError('INVALID_ARGUMENT', 'the first report of a stream must name its domain');
      }
      return report.domain;
    }
    if (report.domain !== '' && report.domain !== stream.domain) {
      throw new QuotaStreamError(
        'INVALID_ARGUMENT',
        `this stream reports domain '${stream.domain}': a report for domain '${report.domain}' needs a stream of its own`,
      );
    }
    return stream.domain;
  }

  private checkBounds(stream: QuotaStream, fresh: ReadonlyMap<string, Named>): void {
    const newForStream = fresh.size;
    let newForInstance = 0;
    for (const key of fresh.keys()) {
      if (!this.buckets.has(key)) newForInstance++;
    }
    if (stream.subscriptions.size + newForStream > this.options.maxBucketsPerStream) {
      throw new QuotaStreamError(
        'RESOURCE_EXHAUSTED',
        `a stream may report at most ${this.options.maxBucketsPerStream} buckets (RLQS_MAX_BUCKETS_PER_STREAM)`,
      );
    }
    if (this.buckets.size + newForInstance > this.options.maxBuckets) {
      throw new QuotaStreamError(
        'RESOURCE_EXHAUSTED',
        `this instance tracks its limit of ${this.options.maxBuckets} buckets (RLQS_MAX_BUCKETS): retry later or on another instance`,
      );
    }
  }

  private subscribe(stream: QuotaStream, domain: string, named: Named): void {
    const { key, pairs, descriptor } = named;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = {
        domain,
        descriptor,
        streams: new Set(),
        unwritten: new Set(),
        sharedWith: undefined,
        quota: undefined,
        sharedOut: undefined,
      };
      this.buckets.set(key, bucket);
    }
    bucket.streams.add(stream);
    const subscription: Subscription = {
      key,
      stream,
      pairs,
      aliases: [pairs],
      bucket,
      perSecond: 0,
      sharedPerSecond: Number.NaN,
      namedIn: 0,
      lastReportMs: 0,
      sent: undefined,
      due: undefined,
      sentAtMs: 0,
      sentTtlMs: 0,
    };
    stream.subscriptions.set(key, subscription);
    stream.byPairs.set(pairs, subscription);
  }

  private unsubscribe(stream: QuotaStream, key: string): { bucket: string; client: string } {
    const subscription = stream.subscriptions.get(key);
    for (const pairs of subscription?.aliases ?? []) stream.byPairs.delete(pairs);
    stream.subscriptions.delete(key);
    const bucket = this.buckets.get(key);
    bucket?.streams.delete(stream);
    if (subscription) {
      bucket?.unwritten.delete(subscription);
      this.undefer(subscription);
    }
    if (bucket?.streams.size === 0) this.buckets.delete(key);
    return { bucket: key, client: stream.client };
  }

  /** The stats of a stream's domain, looked up again after a reload. */
  private statsOf(stream: QuotaStream): DomainStats {
    const config = this.config.current;
    if (stream.domainStats?.config !== config) {
      stream.domainStats = { config, stats: this.domainStatsOf(stream.domain as string) };
    }
    return (stream.domainStats as { stats: DomainStats }).stats;
  }

  /** A domain's stats; a domain the config in force does not name counts under `unknown_domain`. */
  private domainStatsOf(domain: string): DomainStats {
    const name = this.config.current?.domains.has(domain) ? domain : 'unknown_domain';
    let found = this.domainStats.get(name);
    if (!found) {
      const root = `${RLQS_STAT_ROOT}${sanitizeStatName(name)}.`;
      found = {
        streams: this.stats.counter(`${root}streams`),
        reports: this.stats.counter(`${root}reports`),
        assignments: this.stats.counter(`${root}assignments`),
        abandons: this.stats.counter(`${root}abandons`),
      };
      this.domainStats.set(name, found);
    }
    return found;
  }

  private storeFailed(error: unknown): void {
    this.storeErrors.inc();
    this.log.error(`rlqs: ${(error as Error).message}`);
  }
}

/** The stream that reported and the buckets its report named, for the share-out that report started. */
interface Reporter {
  readonly stream: QuotaStream;
  readonly subscriptions: readonly Subscription[];
}

/** Adds one action to its stream's part of the outbox. */
function addAssignment(
  outbox: Map<QuotaStream, BucketAction[]>,
  stream: QuotaStream,
  action: BucketAction,
): void {
  const actions = outbox.get(stream) ?? [];
  actions.push(action);
  outbox.set(stream, actions);
}

function sameEntries(a: readonly DemandEntry[], b: readonly DemandEntry[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as DemandEntry;
    const y = b[i] as DemandEntry;
    if (x.client !== y.client || x.perSecond !== y.perSecond) return false;
  }
  return true;
}

/** Whether `answer` holds the strategies in force of exactly `subscriptions`, with this TTL. */
function isSameAnswer(answer: Answer, subscriptions: readonly Subscription[], ttlMs: number): boolean {
  if (answer.ttlMs !== ttlMs || answer.subscriptions.length !== subscriptions.length) return false;
  for (let i = 0; i < subscriptions.length; i++) {
    const subscription = subscriptions[i] as Subscription;
    if (answer.subscriptions[i] !== subscription) return false;
    const action = answer.actions[i] as BucketAction;
    if (action.kind !== 'assign' || action.strategy !== subscription.sent) return false;
  }
  return true;
}

/** A bucket's key in this instance and in the demand store: its domain and its sorted pairs. */
function bucketKey(domain: string, descriptor: readonly Entry[]): string {
  const parts: string[] = [domain];
  for (const entry of descriptor) parts.push(entry.key, entry.value);
  return JSON.stringify(parts);
}
