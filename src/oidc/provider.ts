/**
 * The provider: what every endpoint of one running identity provider shares. Endpoints are made
 * per provider (factories taking a Provider), so several providers can run in one process.
 */
import type { Config } from "../app/config.ts";
import { KeyRing } from "./keys/keyring.ts";
import { build_discovery, type Discovery } from "./metadata.ts";
import { Metrics } from "./metrics.ts";
import { open_store } from "../store/open.ts";
import type { Store } from "../store/types.ts";

export type LogLine = Record<string, unknown>;
export type Log = (line: LogLine) => void;

export interface Provider {
  readonly config: Config;
  readonly store: Store;
  readonly keys: KeyRing;
  /** Current unix time in seconds; tests inject a clock. */
  now(): number;
  /** Structured log: one JSON object a line, never secrets. */
  readonly log: Log;
  /** The discovery document, computed once (it only depends on config and key algs). */
  readonly discovery: Discovery;
  /** True when the issuer is https: cookies are Secure and pages send HSTS. */
  readonly secure: boolean;
  /** This instance's counters (served at /metrics when IDP_METRICS_TOKEN is set). */
  readonly metrics: Metrics;
}

/** JSON lines on stdout with a timestamp. */
export const json_log: Log = (line) => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`);
};

export type ProviderOptions = {
  /** An open, migrated store; opened from config.database_url when absent. */
  store?: Store;
  now?: () => number;
  log?: Log;
};

const system_now = () => Math.floor(Date.now() / 1000);

export async function create_provider(config: Config, options: ProviderOptions = {}): Promise<Provider> {
  const store = options.store ?? (await open_store(config.database_url, { migrate: true, max: config.database_pool_size }));
  // A key signs ID tokens until it is retired; it stays published until they have expired.
  const now = options.now ?? system_now;
  // A key signs only once every instance had two polls to publish it (rotated twice within one poll).
  const keys = await KeyRing.load(store, { algs: config.signing_algs, retire_after_seconds: config.tokens.id_token_ttl, publish_lead_seconds: 2 * config.keys_poll_seconds, now });
  return {
    config,
    store,
    keys,
    now,
    log: options.log ?? json_log,
    discovery: build_discovery(config, keys.signing_algs()),
    secure: config.issuer.startsWith("https://"),
    metrics: new Metrics(),
  };
}
