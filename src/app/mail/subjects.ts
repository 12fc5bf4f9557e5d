/**
 * The subject of each mail template: a catalog key (locales/<language>.json, oidc/ui/catalogs.ts), given
 * `site` (the brand's name, else the issuer's host) and the template's data (`upstream`).
 */
import type { MailTemplate } from "../../oidc/mail.ts";

export const MAIL_SUBJECTS: { readonly [T in MailTemplate]: string } = {
  password_reset: "mail.password_reset.subject",
  password_changed: "mail.password_changed.subject",
  email_verification: "mail.email_verification.subject",
  invitation: "mail.invitation.subject",
  email_change_confirm: "mail.email_change_confirm.subject",
  email_change_notice: "mail.email_change_notice.subject",
  identity_linked: "mail.identity_linked.subject",
  account_exists: "mail.account_exists.subject",
  test: "mail.test.subject",
};

/** Every template, in the order of MailData. */
export const MAIL_TEMPLATES = Object.keys(MAIL_SUBJECTS) as MailTemplate[];
