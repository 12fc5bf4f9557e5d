/** Making a provider: the store (opened and migrated unless given), the key ring, discovery, metrics, mail (mail/outbox.ts). */
import { config_sources, masked, type Config } from "./config.ts";
import { check_warnings } from "./config_warnings.ts";
import { VERSION } from "../cli/version.ts";
import { SETTINGS, setting_value } from "../config/settings.ts";
import { KeyRing } from "../oidc/keys/keyring.ts";
import { build_discovery } from "../oidc/discovery/metadata.ts";
import type { MailTemplates } from "./mail/render.ts";
import { Metrics } from "../oidc/ops/metrics.ts";
import { json_log, type About, type Log, type Provider } from "../oidc/provider.ts";
import { open_store } from "../store/open.ts";
import type { Store } from "../store/types.ts";
import { load_brand } from "./brand.ts";
import { create_mail, load_mail_templates } from "./mail/outbox.ts";
import { themed_templates } from "./theme.ts";

export type ProviderOptions = {
  /** An open, migrated store; opened from config.database_url when absent. */
  store?: Store;
  now?: () => number;
  log?: Log;
  /** Called when a mail is queued (serve() wakes its mail worker). */
  on_mail_queued?: () => void;
  /** Called when webhook deliveries are queued (serve() wakes its webhook worker). */
  on_webhook_queued?: () => void;
  /** The mail templates (default: views/mail, or those embedded in the executable). */
  mail_templates?: MailTemplates;
};

/** The version, `idp config check`'s warnings and masked values, and each setting's source (config_sources; "program" when the configuration was not loaded by load_config). */
export function about(config: Config): About {
  const effective = masked(config);
  const sources = config_sources(config);
  return {
    version: VERSION,
    warnings: () => check_warnings(config),
    settings: SETTINGS.map(({ path, env }) => ({ path, env, value: setting_value(effective, path), source: sources?.[path] ?? "program" })),
  };
}

const system_now = () => Math.floor(Date.now() / 1000);

export async function create_provider(config: Config, options: ProviderOptions = {}): Promise<Provider> {
  // The brand and the theme are checked before anything opens: a bad file stops the start.
  const brand = load_brand(config);
  const mail_templates = themed_templates(options.mail_templates ?? load_mail_templates(), config.brand.theme_dir, "mail/");
  const store = options.store ?? (await open_store(config.database_url, { migrate: true, max: config.database_pool_size }));
  // A key signs ID tokens until it is retired; it stays published until they have expired.
  const now = options.now ?? system_now;
  // A key signs only once every instance had two polls to publish it (rotated twice within one poll).
  const keys = await KeyRing.load(store, {
    algs: config.signing_algs,
    retire_after_seconds: config.tokens.id_token_ttl,
    publish_lead_seconds: 2 * config.keys_poll_seconds,
    rotate_after_seconds: config.key_rotation_days * 86400,
    openssl: config.openssl,
    secret_key: config.federation.secret_key,
    now,
  });
  const log = options.log ?? json_log;
  const metrics = new Metrics();
  const mail = create_mail(config, store, {
    now,
    ...(options.on_mail_queued ? { on_queued: options.on_mail_queued } : {}),
    templates: mail_templates,
    brand,
    on_refused(id) {
      metrics.mail_failed("failed");
      log({ level: "error", msg: "mail refused: the recipient is not a deliverable address", mail_id: id });
    },
  });
  return {
    config,
    store,
    keys,
    now,
    log,
    discovery: build_discovery(config, keys.signing_algs()),
    secure: config.issuer.startsWith("https://"),
    metrics,
    mail,
    brand,
    about: about(config),
    ...(options.on_webhook_queued && { wake_webhooks: options.on_webhook_queued }),
  };
}
