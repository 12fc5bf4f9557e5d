/** Making a provider: the store (opened and migrated unless given), the key ring, discovery, metrics. */
import type { Config } from "./config.ts";
import { KeyRing } from "../oidc/keys/keyring.ts";
import { build_discovery } from "../oidc/metadata.ts";
import { MAIL_OFF } from "../oidc/mail/types.ts";
import { Metrics } from "../oidc/metrics.ts";
import { json_log, type Log, type Provider } from "../oidc/provider.ts";
import { open_store } from "../store/open.ts";
import type { Store } from "../store/types.ts";

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
  const keys = await KeyRing.load(store, { algs: config.signing_algs, retire_after_seconds: config.tokens.id_token_ttl, publish_lead_seconds: 2 * config.keys_poll_seconds, openssl: config.openssl, now });
  return {
    config,
    store,
    keys,
    now,
    log: options.log ?? json_log,
    discovery: build_discovery(config, keys.signing_algs()),
    secure: config.issuer.startsWith("https://"),
    metrics: new Metrics(),
    mail: MAIL_OFF,
  };
}
