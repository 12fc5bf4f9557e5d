/**
 * The From of outgoing mail as an operator writes it (IDP_MAIL_FROM): an RFC 5322 §3.4 mailbox,
 * either a bare address (`idp@example.com`) or a display name and an angle address
 * (`Example ID <idp@example.com>`, `"Example, Inc." <idp@example.com>`).
 *
 * The display name is a phrase (§3.2.5): words of atext (§3.2.3), with the dots and spaces of
 * obs-phrase (§4.1: `John Q. Public`) and UTF-8 (RFC 6532 §3.2), or one quoted-string (§3.2.4),
 * which any of the specials `( ) < > [ ] : ; @ \ , "` needs. No control characters anywhere: a
 * line break would start a header of its own. Comments and groups are not accepted.
 */
import { z } from "zod";

export type Mailbox = { name: string | null; address: string };

/** The address part: what the setting accepted before names (zod's e-mail check). */
const ADDRESS = z.email();
/** An unquoted display name: atext, dots, spaces and non-ASCII letters; never a special. */
const PHRASE = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.\u0080-\uffff ]+$/u;
/** A quoted-string: any printable character, `\"` and `\\` escaped. */
const QUOTED = /^"((?:[^"\\\u0000-\u001f\u007f]|\\[^\u0000-\u001f\u007f])*)"$/u;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The mailbox `value` names, or null when it is not one (see above). */
export function parse_mailbox(value: string): Mailbox | null {
  if (CONTROL.test(value)) return null;
  const text = value.trim();
  const angle = /^(.*?)\s*<([^<>]*)>$/su.exec(text);
  if (angle === null) return ADDRESS.safeParse(text).success ? { name: null, address: text } : null;
  const [, phrase, address] = angle as unknown as [string, string, string];
  if (!ADDRESS.safeParse(address).success) return null;
  if (phrase === "") return { name: null, address };
  const quoted = QUOTED.exec(phrase);
  if (quoted !== null) {
    const name = quoted[1]!.replace(/\\(.)/gu, "$1").trim();
    return { name: name === "" ? null : name, address };
  }
  return PHRASE.test(phrase) ? { name: phrase.replace(/\s+/g, " "), address } : null;
}

export const MAILBOX_RULE =
  'must be an e-mail address (idp@example.com) or a name and an address (Example ID <idp@example.com>; quote a name with , ; : @ or brackets: "Example, Inc." <idp@example.com>)';
