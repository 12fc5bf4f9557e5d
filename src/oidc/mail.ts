/**
 * What the rules may ask of mail: `idp.mail.send()` puts one message in the outbox (the store)
 * and returns; a background worker delivers it with retries (src/app/mail). The rules never see
 * SMTP, and a failed delivery never reaches the user who caused the mail (no account
 * enumeration through errors or timing).
 *
 * Each template is `views/mail/<template>.txt.eta` and `views/mail/<template>.html.eta`, given
 * the template's data below plus `issuer` and `site` (the issuer's host); links in the data are
 * always built from the issuer. The subject of each is in subjects.ts, rendering in render.ts.
 */

/** The data each template is rendered with; a link is an absolute URL under the issuer. */
export type MailData = {
  /** Forgot password: a single-use link to choose a new password. */
  password_reset: { name: string | null; link: string; expires_minutes: number };
  /**
   * After a password change or reset: a notice, no link to act on. `reclaimed`: the reset proved
   * the address for the first time and removed the ways in added before (accounts/reclaim.ts).
   */
  password_changed: { name: string | null; reclaimed?: boolean };
  /** Sign-up or a new address: a single-use link that proves the address. */
  email_verification: { name: string | null; link: string; expires_minutes: number };
  /** An administrator invites someone: a link to choose a password. */
  invitation: { name: string | null; link: string; expires_hours: number };
  /** E-mail change, to the new address: a link that confirms it. */
  email_change_confirm: { name: string | null; link: string; new_email: string; expires_minutes: number };
  /** E-mail change, to the old address: a notice. */
  email_change_notice: { name: string | null; new_email: string };
  /**
   * An upstream account was linked as a new way to sign in (from the account page, or linked
   * automatically by its verified address): a notice, so a link made with a stolen session is seen.
   */
  identity_linked: { name: string | null; upstream: string; upstream_email: string | null };
  /** Sign-up with an address that already has an account: told to its owner, not on the page (no enumeration). */
  account_exists: { name: string | null; username: string; sign_in_link: string };
  /** `idp mail test ADDRESS`: proves the settings work. */
  test: Record<string, never>;
};

export type MailTemplate = keyof MailData;

/** One message to send: the template chooses subject and bodies. */
export type MailRequest = {
  [T in MailTemplate]: { to: string; template: T; data: MailData[T] };
}[MailTemplate];

export interface Mail {
  /**
   * False when mail cannot be delivered (production without SMTP): the features that need mail
   * are off and the pages do not offer them. In development without SMTP mail goes to the log.
   */
  readonly enabled: boolean;
  /** Queues the message in the outbox; resolves once it is stored, not once it is delivered. */
  send(request: MailRequest): Promise<void>;
}

/** Mail that is off: `send` refuses, so a rule that forgets to check `enabled` fails loudly. */
export const MAIL_OFF: Mail = {
  enabled: false,
  send: async () => {
    throw new Error("mail is not configured");
  },
};
