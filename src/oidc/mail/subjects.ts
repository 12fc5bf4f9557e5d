/** The subject of each mail template (English for now); `site` is the issuer's host. */
import type { MailData, MailTemplate } from "./types.ts";

export const MAIL_SUBJECTS: { readonly [T in MailTemplate]: (site: string, data: MailData[T]) => string } = {
  password_reset: (site) => `Reset your password for ${site}`,
  password_changed: (site) => `Your password for ${site} was changed`,
  email_verification: (site) => `Confirm your e-mail address for ${site}`,
  invitation: (site) => `You are invited to ${site}`,
  email_change_confirm: (site) => `Confirm your new e-mail address for ${site}`,
  email_change_notice: (site) => `The e-mail address of your ${site} account is changing`,
  identity_linked: (site, data) => `${data.upstream} can now sign in to your ${site} account`,
  account_exists: (site) => `You already have an account at ${site}`,
  test: (site) => `Test message from ${site}`,
};

/** Every template, in the order of MailData. */
export const MAIL_TEMPLATES = Object.keys(MAIL_SUBJECTS) as MailTemplate[];
