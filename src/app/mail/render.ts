/**
 * Rendering a mail: the subject (subjects.ts) and two bodies from Eta templates,
 * `mail/<template>.txt` (plain text, not escaped) and `mail/<template>.html` (autoescaped, inside
 * views/mail/layout.html.eta). The templates come from the provider's views (views/mail/, embedded in the
 * executable like the pages, or replaced by the operator's theme); each is given its data plus
 * `issuer`, `site` (the brand's name) and `brand` (its colours and logo, oidc/ui/brand.ts).
 */
import { Eta } from "eta";
import { brand_url, type Brand } from "../../oidc/ui/brand.ts";
import { MAIL_SUBJECTS, MAIL_TEMPLATES } from "./subjects.ts";
import { BASE_LOCALE, translator } from "../../oidc/ui/catalogs.ts";
import type { MailRequest } from "../../oidc/mail.ts";

export type RenderedMail = { subject: string; text: string; html: string };

/** Template name (path under views/ without `.eta`) → its text, as the view loader gives them. */
export type MailTemplates = Readonly<Record<string, string>>;

/** What the HTML mails show of the brand: colours as inline styles (mail clients drop stylesheets). */
export type MailBrand = { color: string; text: string; link: string; logo: string | null };

/** Our default colours (static/style.css's light theme) unless the operator set one. */
const DEFAULT_MAIL_BRAND = { color: "#1f5fbf", text: "#ffffff", link: "#1f5fbf" };

function mail_brand(issuer: string, brand: Brand | null): MailBrand {
  const colors = brand?.colors ?? null;
  const logo = brand?.logo ?? null;
  return {
    ...(colors === null ? DEFAULT_MAIL_BRAND : { color: colors.brand, text: colors.brand_text, link: colors.accent_light }),
    // Loaded by the reader's mail client from the issuer: only over https (no mixed content, no
    // tracking over plain http), and never SVG, which many mail clients refuse to show.
    logo: logo !== null && issuer.startsWith("https://") && logo.type !== "image/svg+xml" ? brand_url(issuer, logo) : null,
  };
}

export class MailRenderer {
  private readonly text = new Eta({ autoEscape: false, autoTrim: false, cache: true, useWith: false });
  private readonly html = new Eta({ autoEscape: true, autoTrim: [false, "nl"], cache: true, useWith: false });
  private readonly site: string;
  private readonly brand: MailBrand;

  /** Raises when a template of MailData lacks its text or HTML body (a broken build, found at start). */
  constructor(
    templates: MailTemplates,
    private readonly issuer: string,
    brand: Brand | null = null,
  ) {
    this.site = brand?.name ?? new URL(issuer).host;
    this.brand = mail_brand(issuer, brand);
    const missing = MAIL_TEMPLATES.flatMap((t) => [`mail/${t}.txt`, `mail/${t}.html`]).filter((name) => templates[name] === undefined);
    if (missing.length > 0) throw new Error(`mail templates missing from views/: ${missing.map((n) => `${n}.eta`).join(", ")}`);
    for (const [name, source] of Object.entries(templates)) {
      if (!name.startsWith("mail/")) continue;
      (name.endsWith(".txt") ? this.text : this.html).loadTemplate(`@${name}`, source);
    }
  }

  /** The message in `locale` (one of oidc/ui/catalogs.ts LOCALES; English when absent): templates get `t`, `tr` and `lang`. */
  render(request: MailRequest, locale: string = BASE_LOCALE): RenderedMail {
    const tr = translator(locale);
    const values = { ...request.data, issuer: this.issuer, site: this.site, brand: this.brand, tr, t: tr.t, lang: tr.locale, dir: tr.dir };
    const subject = tr.t(MAIL_SUBJECTS[request.template], { ...(request.data as Record<string, string>), site: this.site });
    return {
      subject,
      text: this.text.render(`@mail/${request.template}.txt`, values),
      html: this.html.render(`@mail/${request.template}.html`, { ...values, subject }),
    };
  }
}
