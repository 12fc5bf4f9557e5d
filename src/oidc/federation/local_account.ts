/**
 * The local account of an upstream sign-in: the linked one, one being linked from the account
 * page, an auto-link by a verified e-mail matching exactly one active, verified local account
 * (when the upstream allows it), or a just-in-time account (policy jit). A link counts only when
 * it was made under the upstream's current issuer and subject claim (identity_source.ts).
 */
import { record_event } from "../audit.ts";
import { random_token } from "../crypto/secrets.ts";
import { PageError } from "../errors.ts";
import type { Provider } from "../provider.ts";
import type { JsonObject, UpstreamRow, UserRow } from "../../store/types.ts";
import { address_key, parse_address } from "../accounts/emails.ts";
import { AMR_FEDERATED } from "../signin/methods.ts";
import { map_groups } from "./group_sync.ts";
import { identity_source, same_source } from "./identity_source.ts";
import { send_link_notice } from "./link_notice.ts";
import type { UpstreamProfile } from "./profile.ts";

/** A refused upstream sign-in: the error page, as access_denied. */
export function refused(title: string, message: string): PageError {
  return new PageError(title, message, "access_denied");
}

export async function local_account(
  idp: Provider,
  upstream: UpstreamRow,
  profile: UpstreamProfile,
  link_user_id: string | null,
  ip: string,
): Promise<{ user: UserRow; kind: "signed_in" | "linked"; amr: string[] }> {
  const amr = [AMR_FEDERATED];
  const source = identity_source(upstream);
  const found = await idp.store.get_identity(upstream.name, profile.subject);
  // OIDC Core §2: a subject is unique only within its issuer. A link made under another issuer or
  // subject claim (the upstream's changed since) names whoever held this string there, not this
  // user: it is no link for them, who is treated as unknown; a new link replaces the old one.
  const identity = found !== null && same_source(found, source) ? found : null;
  const details = (how: string): JsonObject => ({ upstream: upstream.name, how });
  const link = async (user_id: string, email: string | null) => {
    if (found !== null && identity === null) {
      await idp.store.unlink_identity(found.user_id, upstream.name, found.subject);
      await record_event(idp, {
        type: "federation_unlink",
        outcome: "success",
        user_id: found.user_id,
        ip,
        details: { upstream: upstream.name, reason: "made under another issuer or subject claim" },
      });
    }
    await idp.store.link_identity({ upstream: upstream.name, subject: profile.subject, user_id, email, ...source });
  };

  // Linking from the account page: the signed-in user proved the local account already.
  if (link_user_id !== null) {
    const user = await idp.store.get_user_by_id(link_user_id);
    if (user === null) throw refused("Account not found", "Sign in again and retry.");
    if (identity !== null && identity.user_id !== user.id) {
      await record_event(idp, { type: "federation_link", outcome: "failure", user_id: user.id, ip, details: { ...details("manual"), reason: "linked to another account" } });
      throw refused("Already linked", `This ${upstream.display_name} account is already linked to another account here.`);
    }
    if (identity === null) {
      await link(user.id, profile.email);
      await send_link_notice(idp, user, upstream, profile.email);
    }
    await record_event(idp, { type: "federation_link", outcome: "success", user_id: user.id, ip, details: details("manual") });
    return { user, kind: "linked", amr };
  }

  if (identity !== null) {
    const user = await idp.store.get_user_by_id(identity.user_id);
    if (user === null) throw refused("Account not found", "The account linked to this sign-in no longer exists.");
    await idp.store.touch_identity(upstream.name, profile.subject, idp.now());
    await map_groups(idp, upstream, user, profile, ip);
    return { user, kind: "signed_in", amr };
  }

  // First sign-in with this upstream account. The address in its stored spelling (accounts/emails.ts).
  const email = profile.email === null ? null : stored_address(profile.email);
  const same_email = email === null ? [] : await users_with_address(idp, email);
  if (same_email.length > 0) {
    // Automatic linking only on an operator's opt-in, one candidate, an address verified at the
    // upstream (OIDC Core §5.1 email_verified) AND here, and an active account: else whoever
    // controls an upstream account with an unverified address would take the local one, and an
    // account holding an address it never proved (sign-up without verification, an
    // administrator's edit) would receive its owner's upstream identity.
    const user = same_email.length === 1 ? same_email[0]! : null;
    const proven = user !== null && profile.email_verified && user.email_verified === true && user.status === "active";
    if (upstream.auto_link && proven) {
      await link(user.id, email);
      await record_event(idp, { type: "federation_link", outcome: "success", user_id: user.id, ip, details: details("auto_verified_email") });
      await send_link_notice(idp, user, upstream, email);
      await map_groups(idp, upstream, user, profile, ip);
      return { user, kind: "signed_in", amr };
    }
    await record_event(idp, {
      type: "federation_link",
      outcome: "failure",
      ip,
      details: {
        ...details("auto_verified_email"),
        reason: !upstream.auto_link
          ? "auto-link disabled"
          : user === null
            ? "several accounts"
            : !profile.email_verified
              ? "e-mail not verified upstream"
              : user.status !== "active"
                ? `local account ${user.status}`
                : "e-mail not verified here",
      },
    });
    throw refused(
      "Link your account first",
      `An account here already uses this e-mail address. Sign in with its password or passkey, then link ${upstream.display_name} on your account page.`,
    );
  }
  if (upstream.policy !== "jit") {
    await record_event(idp, { type: "federation_login", outcome: "failure", ip, details: { upstream: upstream.name, reason: "no linked account (policy link)" } });
    throw refused(
      "No linked account",
      `No account here is linked to this ${upstream.display_name} account. Sign in another way, then link ${upstream.display_name} on your account page.`,
    );
  }
  const user = await idp.store.create_user({
    username: await free_username(idp, upstream, profile),
    // No local password (the shared convention): password sign-in always fails.
    password_hash: "",
    name: profile.name,
    // Only an address the upstream verified is kept: an unverified one would block its owner's
    // sign-up and let a later "forgot password" by its owner set a password on this account.
    email: profile.email_verified ? email : null,
    email_verified: profile.email_verified && email !== null,
    picture: profile.picture,
  });
  await link(user.id, profile.email_verified ? email : null);
  await record_event(idp, { type: "federation_account_created", outcome: "success", user_id: user.id, ip, details: details("jit") });
  await map_groups(idp, upstream, user, profile, ip);
  return { user, kind: "signed_in", amr };
}

/** The address in its stored spelling (accounts/emails.ts: domain as lower-case U-labels); as given when it does not parse. */
function stored_address(email: string): string {
  const parsed = parse_address(email);
  return "problem" in parsed ? email : parsed.email;
}

/**
 * The accounts holding `email` by address_key (case-insensitive, the domain as A-labels):
 * find_users_by_email folds ASCII case only, so both spellings of an IDN domain are looked up.
 */
async function users_with_address(idp: Provider, email: string): Promise<UserRow[]> {
  if (email.lastIndexOf("@") <= 0) return [];
  const key = address_key(email);
  const at = email.lastIndexOf("@");
  const spellings = new Set([email, `${email.slice(0, at)}@${key.slice(key.lastIndexOf("@") + 1)}`]);
  const found = new Map<string, UserRow>();
  for (const spelling of spellings) {
    for (const user of await idp.store.find_users_by_email(spelling)) if (user.email !== null && address_key(user.email) === key) found.set(user.id, user);
  }
  return [...found.values()];
}

/** A username derived from the upstream's, free here. */
async function free_username(idp: Provider, upstream: UpstreamRow, profile: UpstreamProfile): Promise<string> {
  const wanted = profile.preferred_username ?? profile.email?.split("@")[0] ?? `${upstream.name}-${profile.subject}`;
  const base =
    wanted
      .normalize("NFKC")
      .replace(/[^\p{L}\p{N}._-]/gu, "")
      .slice(0, 40) || `${upstream.name}-user`;
  for (let i = 0; i < 5; i++) {
    const candidate = i === 0 ? base : `${base}-${i + 1}`;
    if ((await idp.store.get_user_by_username(candidate)) === null) return candidate;
  }
  return `${base}-${random_token(6).slice(0, 8).toLowerCase()}`;
}
