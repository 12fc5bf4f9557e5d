/**
 * `idp.mail` (oidc/mail.ts): `send()` renders the template and inserts the message in the
 * outbox table, then wakes the worker (worker.ts), which delivers it within a moment. The request
 * that caused the mail only waits for the insert: never for SMTP, and it never learns whether the
 * delivery worked (no account enumeration through errors or timing).
 *
 * With IDP_SMTP_URL: mail is on and goes through SMTP. Without it: on in development (the worker
 * writes each message to the log), off in production (MAIL_OFF: the features that need mail are
 * off).
 */
import { fileURLToPath } from "node:url";
import { Fw } from "../../fw/index.ts";
import type { Brand } from "../../oidc/ui/brand.ts";
import { MailRenderer, type MailTemplates } from "./render.ts";
import { MAIL_OFF, type Mail, type MailRequest } from "../../oidc/mail.ts";
import { BASE_LOCALE, REQUEST_LOCALE, supported_locale } from "../../oidc/ui/catalogs.ts";
import type { Log } from "../../oidc/provider.ts";
import type { Store } from "../../store/types.ts";
import type { Config } from "../config.ts";
import { MANIFEST } from "../embedded/manifest.ts";
import { smtp_transport } from "./smtp.ts";
import { log_transport, type MailTransport } from "./transport.ts";

const VIEWS_DIR = fileURLToPath(new URL("../../../views", import.meta.url).href);

/** After this long without a successful delivery a message ends `failed` (worker.ts). */
export const MAIL_GIVE_UP_SECONDS = 24 * 3600;

/**
 * An address the outbox delivers to: one mailbox, no display name, no spaces or line breaks
 * (header injection), one @ and a dotted domain. The transport hands it to SMTP as a bare address
 * (never parsed for a name), so `a@b.example<c@d.example>` cannot redirect a message.
 */
export const DELIVERABLE_ADDRESS = /^[^\s@<>,;"()[\]\\]+@[^\s@<>,;"()[\]\\]+\.[^\s@<>,;"()[\]\\]+$/;

/** The templates under views/mail: embedded in the executable, else read from the repository. */
export function load_mail_templates(): MailTemplates {
  const all = MANIFEST?.templates ?? Fw.read_templates(VIEWS_DIR);
  return Object.fromEntries(Object.entries(all).filter(([name]) => name.startsWith("mail/")));
}

/** Whether this configuration can deliver mail: SMTP, or the log in development. */
export function mail_enabled(config: Config): boolean {
  return config.smtp_url !== undefined || !config.production;
}

/** What mail being off takes away, in the words of the start warning and `idp config check`. */
export const WITHOUT_MAIL = ["forgot password", "e-mail change", "e-mail confirmation links", "invitations"] as const;

/**
 * The warning for a configuration without mail (production without IDP_SMTP_URL), logged once at
 * start (server.ts) and listed by `idp config check`: the features that need mail are then not
 * offered, and the pages say why (account page, sign-in page). Null when mail is on.
 */
export function mail_off_warning(config: Config): string | null {
  if (mail_enabled(config)) return null;
  return `mail is off (production mode without IDP_SMTP_URL): ${WITHOUT_MAIL.join(", ")} are not available, and the sign-in and account pages say so; set IDP_SMTP_URL and IDP_MAIL_FROM to turn them on`;
}

/** The transport for this configuration, or null when mail is off (production without SMTP). */
export function create_transport(config: Config, log: Log): MailTransport | null {
  if (config.smtp_url !== undefined) return smtp_transport(config.smtp_url);
  return config.production ? null : log_transport(log);
}

export type OutboxOptions = {
  now: () => number;
  /** Called after each queued message (the worker wakes). */
  on_queued?: () => void;
  /** Called with the id of a message stored failed because its recipient is no deliverable address. */
  on_refused?: (id: string) => void;
  /** Default: views/mail (load_mail_templates). */
  templates?: MailTemplates;
  /** The operator's brand (app/brand.ts); default: the issuer's host and our colours. */
  brand?: Brand;
  /** A mail's language when neither its recipient nor its request chose one (IDP_DEFAULT_LOCALE). */
  default_locale?: string;
};

export class Outbox implements Mail {
  readonly enabled = true;
  private readonly renderer: MailRenderer;

  constructor(
    private readonly store: Store,
    issuer: string,
    private readonly options: OutboxOptions,
  ) {
    this.renderer = new MailRenderer(options.templates ?? load_mail_templates(), issuer, options.brand ?? null);
  }

  /**
   * Renders and stores the message; returns its outbox id. A recipient that is no deliverable
   * address is stored `failed` at once (visible in `idp mail list --failed`), never raised: the
   * user who caused the mail must not learn anything from it.
   */
  async queue(request: MailRequest): Promise<string> {
    const rendered = this.renderer.render(request, await this.locale_for(request.to));
    const now = this.options.now();
    const deliverable = DELIVERABLE_ADDRESS.test(request.to);
    const row = await this.store.enqueue_mail({
      recipient: request.to,
      template: request.template,
      ...rendered,
      created_at: now,
      next_attempt_at: now,
      give_up_at: now + MAIL_GIVE_UP_SECONDS,
      ...(!deliverable && { refused: "the recipient is not a deliverable e-mail address" }),
    });
    if (deliverable) this.options.on_queued?.();
    else this.options.on_refused?.(row.id);
    return row.id;
  }

  /**
   * The language of a mail (README, "Languages"): the recipient's saved choice (the accounts with
   * that address agree on one), else the language of the request that caused it, else the default.
   */
  private async locale_for(recipient: string): Promise<string> {
    const chosen = new Set((await this.store.find_users_by_email(recipient)).map((user) => user.locale).filter((locale) => locale !== null));
    const saved = chosen.size === 1 ? supported_locale([...chosen][0]) : null;
    return saved ?? REQUEST_LOCALE.getStore() ?? supported_locale(this.options.default_locale) ?? BASE_LOCALE;
  }

  async send(request: MailRequest): Promise<void> {
    await this.queue(request);
  }
}

/** `idp.mail` for this configuration: the outbox, or MAIL_OFF in production without SMTP. */
export function create_mail(config: Config, store: Store, options: OutboxOptions): Mail {
  return mail_enabled(config) ? new Outbox(store, config.issuer, { default_locale: config.default_locale, ...options }) : MAIL_OFF;
}
