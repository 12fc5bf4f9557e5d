/**
 * GET /admin/users: users in username order, 50 a page (keyset cursor, oidc/admin/cursor.ts),
 * searched by the start of the username or e-mail (`q`); the form to create one.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { DEFAULT_PAGE, decode_cursor, page_of } from "../../../oidc/admin/cursor.ts";
import { AdminError } from "../../../oidc/admin/errors.ts";
import { public_user } from "../../../oidc/admin/users.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { invalid_page_request } from "../../errors.ts";
import { console_gate, console_notice, console_values, invitations_available } from "../../pages/admin_console.ts";

export const AdminConsoleUsersRequest = Fw.Request(
  "AdminConsoleUsersRequest",
  z.object({ q: z.string().trim().max(254).optional(), cursor: z.string().max(1024).optional(), done: z.string().max(64).optional() }),
  { from: ["query"], on_invalid: invalid_page_request("The search could not be read", (issues) => `Go back and try again (${issues}).`) },
);

/** The users page's values: a page of users and the create form (`form`: what was typed, on a refusal). */
export async function users_page(idp: Provider, admin: ConsoleSession, query: { q?: string | undefined; cursor?: string | undefined }, extra: Record<string, unknown> = {}) {
  const q = query.q === "" ? undefined : query.q;
  let after: string | undefined;
  try {
    after = query.cursor === undefined || query.cursor === "" ? undefined : decode_cursor(query.cursor, (v): v is string => typeof v === "string");
  } catch (error) {
    if (!(error instanceof AdminError)) throw error;
  }
  const rows = await idp.store.search_users({ q, after, limit: DEFAULT_PAGE + 1 });
  const page = page_of(rows, DEFAULT_PAGE, (last) => last.username);
  const next = page.next_cursor === null ? null : `?${new URLSearchParams({ ...(q !== undefined && { q }), cursor: page.next_cursor })}`;
  return console_values(idp, admin, "users", "Users", {
    users: page.items.map(public_user),
    q: q ?? "",
    next,
    form: { username: "", email: "", name: "" },
    invite: invitations_available(idp),
    invite_form: { email: "", name: "", username: "" },
    ...extra,
  });
}

export const AdminConsoleUsers = (idp: Provider) =>
  class AdminConsoleUsers extends Fw.Renderable(Fw.Endpoint(AdminConsoleUsersRequest, [Fw.Response.Html, Fw.Response.Redirect])) {
    static route = `GET ${ADMIN_CONSOLE}/users`;

    async call() {
      const gate = await console_gate(idp, this, "view_users");
      if ("refused" in gate) return gate.refused;
      const input = this.admin_console_users_request;
      return this.view("admin/users", await users_page(idp, gate.admin, input, { notice: console_notice(input.done) }));
    }
  };
