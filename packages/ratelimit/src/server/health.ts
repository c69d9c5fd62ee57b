import type { StoreKind } from '../backends/store.js';

/** The counter store under its own name (the reference has only `redis`), SIGTERM, and the config. */
export type HealthComponent = StoreKind | 'sigterm' | 'config';

/**
 * The reference's health model: healthy only while every enabled component is healthy.
 * The store and `sigterm` start healthy; `config` exists only with
 * HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED and starts unhealthy.
 */
export class HealthModel {
  private readonly components = new Map<HealthComponent, boolean>();
  private readonly listeners: Array<(healthy: boolean) => void> = [];
  private healthy: boolean;

  constructor(store: StoreKind, withConfigComponent: boolean) {
    this.components.set(store, true);
    this.components.set('sigterm', true);
    if (withConfigComponent) this.components.set('config', false);
    this.healthy = this.allHealthy();
  }

  isHealthy(): boolean {
    return this.healthy;
  }

  ok(component: HealthComponent): void {
    this.set(component, true);
  }

  fail(component: HealthComponent): void {
    this.set(component, false);
  }

  /** Subscribes to changes of the overall state; returns the unsubscribe function. */
  onChange(listener: (healthy: boolean) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  private set(component: HealthComponent, healthy: boolean): void {
    if (!this.components.has(component)) return;
    this.components.set(component, healthy);
    const now = this.allHealthy();
    if (now === this.healthy) return;
    this.healthy = now;
    for (const listener of [...this.listeners]) listener(now);
  }

  private allHealthy(): boolean {
    for (const healthy of this.components.values()) if (!healthy) return false;
    return true;
  }
}
