/**
 * GET /admin/users/:id: one user: the profile form (with the ETag of what it shows, so a save
 * over someone else's change is refused), status, groups, the last sign-in, browser sessions, the
 * consents given to applications (each withdrawable: user_action.ts `revoke_consent`), the linked
 * upstream identities and passkeys (read-only), the harmless actions, and the links to the
 * confirmation pages of the destructive ones (user_confirm.ts).
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { etag_of } from "../../../oidc/admin/etag.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { session_sid } from "../../../oidc/logout/sid.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { JsonValue, UserRow } from "../../../store/types.ts";
import { display_name } from "../../../oidc/clients/metadata.ts";
import { identities_of } from "../../../oidc/federation/upstreams.ts";
import { user_of, user_view } from "../admin/users/find.ts";
import { describe_user_agent, user_agent_message } from "../../pages/sessions.ts";
import { may_act_on } from "../../../oidc/admin/roles.ts";
import { console_can, console_gate, console_notice, console_url, console_values, when } from "../../pages/admin_console.ts";
import { USER_DANGERS, user_confirm_url } from "./user_confirm.ts";
import { attribute_text } from "../../../oidc/attributes/values.ts";

/** The user's custom attributes as the profile form shows them: every declared one, its value as text (attributes/values.ts). */
async function attribute_fields(idp: Provider, values: Readonly<Record<string, JsonValue>>, typed: Readonly<Record<string, string>> | null) {
  return (await idp.store.list_attribute_definitions()).map((definition) => ({
    name: definition.name,
    field: `attribute.${definition.name}`,
    type: definition.type,
    hint_key: `account.attribute_hint_${definition.type === "string[]" ? "list" : definition.type}`,
    required: definition.required,
    value: typed?.[definition.name] ?? attribute_text(values[definition.name]),
  }));
}

export const AdminConsoleUserRequest = Fw.Request("AdminConsoleUserRequest", z.object({ done: z.string().max(64).optional() }), { from: ["query"] });

/** The consents the user gave, by application name (as the account page lists them): scopes as granted. */
async function consents_of(idp: Provider, user_id: string) {
  const grants = await idp.store.list_grants_for_user(user_id);
  const rows = await Promise.all(
    grants.map(async (grant) => {
      const client = await idp.store.get_client(grant.client_id);
      return { client_id: grant.client_id, name: client === null ? grant.client_id : display_name(client), scopes: grant.scopes.join(" "), granted: when(grant.created_at) };
    }),
  );
  return rows.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The last successful sign-in, from the audit log (the newest `login` success: password, passkey
 * or upstream alike, oidc/signin/complete.ts); null when the log has none (never, or purged).
 */
async function last_sign_in(idp: Provider, user_id: string): Promise<string | null> {
  const events = await idp.store.list_audit_events({ user_id, type: "login", limit: 50 });
  const success = events.find((event) => event.outcome === "success");
  return success === undefined ? null : when(success.at);
}

/** The user page's values; `extra` carries a refusal's words and, on a stale save, nothing else. */
export async function user_page(idp: Provider, admin: ConsoleSession, user: UserRow, extra: Record<string, unknown> = {}) {
  const view = await user_view(idp, user);
  const now = idp.now();
  const sessions = (await idp.store.list_sessions_for_user(user.id))
    .filter((row) => row.expires_at > now)
    .map((row) => ({
      sid: session_sid(row.id_hash),
      device: describe_user_agent(row.user_agent),
      device_message: user_agent_message(row.user_agent),
      ip: row.ip,
      signed_in: when(row.auth_time),
      last_seen: when(row.last_seen_at),
      amr: row.amr.join(", "),
    }));
  // The helpdesk sees, but does not act on, someone with a console role (oidc/admin/roles.ts).
  const can = console_can(admin);
  if (!(await may_act_on(idp, admin.roles, user))) for (const permission of Object.keys(can) as (keyof typeof can)[]) if (!permission.startsWith("view_")) can[permission] = false;
  const all_groups = (await idp.store.list_groups()).map((group) => group.name).filter((name) => !view.groups.includes(name));
  return console_values(idp, admin, "users", `User ${user.username}`, {
    // The heading in the page's language (views/admin/_nav.eta): a catalog message with the name.
    heading_message: { key: "admin.title.user", values: { username: user.username } },
    user: view,
    etag: etag_of(view),
    attributes: await attribute_fields(idp, view.attributes, (extra.typed_attributes as Record<string, string> | undefined) ?? null),
    created: when(user.created_at),
    sessions,
    last_sign_in: await last_sign_in(idp, user.id),
    consents: await consents_of(idp, user.id),
    identities: (await identities_of(idp, user.id)).linked,
    passkeys: (await idp.store.list_passkeys_for_user(user.id)).map((passkey) => ({
      name: passkey.name,
      added: when(passkey.created_at),
      last_used: passkey.last_used_at === null ? null : when(passkey.last_used_at),
      synced: passkey.backup_state,
    })),
    other_groups: all_groups,
    action: console_url(idp, `/users/${user.id}`),
    audit: `${console_url(idp, "/audit")}?${new URLSearchParams({ user: user.id })}`,
    mail: idp.mail.enabled,
    // The destructive actions are links to their confirmation pages (user_confirm.ts), never buttons of a form here.
    confirm: Object.fromEntries(USER_DANGERS.map((action) => [action, user_confirm_url(idp, user.id, action)])),
    admin_group: idp.config.admin_console.group.toLowerCase(),
    can,
    ...extra,
  });
}

export const AdminConsoleUser = (idp: Provider) =>
  class AdminConsoleUser extends Fw.Renderable(Fw.Endpoint(AdminConsoleUserRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/users/:id`;

    async call() {
      const gate = await console_gate(idp, this, "view_users");
      if ("refused" in gate) return gate.refused;
      let user: UserRow;
      try {
        user = await user_of(idp, this.route_params.id ?? "");
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return this.view(
          "message",
          {
            ...console_values(idp, gate.admin, "users", "No such user"),
            message: "This user does not exist (any more).",
            link: { href: console_url(idp, "/users"), text: "Back to users" },
            form: null,
          },
          404,
        );
      }
      return this.view("admin/user", await user_page(idp, gate.admin, user, { notice: console_notice(this.admin_console_user_request.done) }));
    }
  };
