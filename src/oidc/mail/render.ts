/**
 * Rendering a mail: the subject (subjects.ts) and two bodies from Eta templates,
 * `mail/<template>.txt` (plain text, not escaped) and `mail/<template>.html` (autoescaped, inside
 * `mail/layout.html`). The templates come from the provider's views (views/mail/, embedded in the
 * executable like the pages); each is given its data plus `issuer` and `site`.
 */
import { Eta } from "eta";
import { MAIL_SUBJECTS, MAIL_TEMPLATES } from "./subjects.ts";
import type { MailRequest } from "./types.ts";

export type RenderedMail = { subject: string; text: string; html: string };

/** Template name (path under views/ without `.eta`) → its text, as the view loader gives them. */
export type MailTemplates = Readonly<Record<string, string>>;

export class MailRenderer {
  private readonly text = new Eta({ autoEscape: false, autoTrim: false, cache: true, useWith: false });
  private readonly html = new Eta({ autoEscape: true, autoTrim: [false, "nl"], cache: true, useWith: false });
  private readonly site: string;

  /** Raises when a template of MailData lacks its text or HTML body (a broken build, found at start). */
  constructor(
    templates: MailTemplates,
    private readonly issuer: string,
  ) {
    this.site = new URL(issuer).host;
    const missing = MAIL_TEMPLATES.flatMap((t) => [`mail/${t}.txt`, `mail/${t}.html`]).filter((name) => templates[name] === undefined);
    if (missing.length > 0) throw new Error(`mail templates missing from views/: ${missing.map((n) => `${n}.eta`).join(", ")}`);
    for (const [name, source] of Object.entries(templates)) {
      if (!name.startsWith("mail/")) continue;
      (name.endsWith(".txt") ? this.text : this.html).loadTemplate(`@${name}`, source);
    }
  }

  render(request: MailRequest): RenderedMail {
    const values = { ...request.data, issuer: this.issuer, site: this.site };
    const subject = (MAIL_SUBJECTS[request.template] as (site: string, data: unknown) => string)(this.site, request.data);
    return {
      subject,
      text: this.text.render(`@mail/${request.template}.txt`, values),
      html: this.html.render(`@mail/${request.template}.html`, { ...values, subject }),
    };
  }
}
