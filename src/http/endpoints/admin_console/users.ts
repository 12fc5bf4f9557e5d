/**
 * GET /admin/users: a page of users (store `browse_users`), 50 a page with the number of matches,
 * searched by any part of the username, e-mail or name (`q`), filtered by status, group and
 * second factor, sorted by username or newest first: all in the query, so a filtered view is a
 * link. The rows carry checkboxes for the bulk actions (users_bulk_confirm.ts); below, the forms
 * to create or invite a user.
 */
import { z } from "zod";
import { Fw } from "../../../fw/index.ts";
import { ADMIN_CONSOLE } from "../../../oidc/admin/console.ts";
import { DEFAULT_PAGE } from "../../../oidc/admin/cursor.ts";
import { public_user } from "../../../oidc/admin/users.ts";
import type { Provider } from "../../../oidc/provider.ts";
import type { ConsoleSession } from "../../../oidc/admin/console.ts";
import { USER_SORTS, USER_STATUSES, type UserBrowse, type UserStatus } from "../../../store/types.ts";
import { invalid_page_request } from "../../errors.ts";
import { BULK_ACTIONS, BULK_PERMISSIONS } from "../../pages/admin_bulk.ts";
import { console_gate, console_notice, console_values } from "../../pages/admin_console.ts";

/** The highest page number asked for: 100k users are 2,000 pages of 50. */
const MAX_PAGE_NUMBER = 100_000;

/** The users page's query: every field may be empty (the forms' "any"). */
export type UsersQuery = {
  q?: string | undefined;
  status?: string | undefined;
  group?: string | undefined;
  mfa?: string | undefined;
  sort?: string | undefined;
  page?: string | undefined;
};

export const AdminConsoleUsersRequest = Fw.Request(
  "AdminConsoleUsersRequest",
  z.object({
    q: z.string().trim().max(254).optional(),
    status: z.enum(["", ...USER_STATUSES]).optional(),
    group: z.string().trim().max(256).optional(),
    mfa: z.enum(["", "yes", "no"]).optional(),
    sort: z.enum(["", ...USER_SORTS]).optional(),
    page: z
      .string()
      .regex(/^[0-9]{1,6}$/, "must be a page number")
      .optional(),
    done: z.string().max(64).optional(),
  }),
  { from: ["query"], on_invalid: invalid_page_request("The search could not be read", (issues) => `Go back and try again (${issues}).`) },
);

/** The users page's values: a page of users, its filters and the bulk actions (new users are made on user_new.ts's page). */
export async function users_page(idp: Provider, admin: ConsoleSession, query: UsersQuery, extra: Record<string, unknown> = {}) {
  const q = query.q ?? "";
  const status = USER_STATUSES.includes(query.status as UserStatus) ? (query.status as UserStatus) : undefined;
  const sort = query.sort === "created" ? "created" : "username";
  const mfa = query.mfa === "yes" || query.mfa === "no" ? query.mfa : "";
  const group_name = query.group ?? "";
  const page_number = Math.min(Math.max(1, Number(query.page ?? "1") || 1), MAX_PAGE_NUMBER);
  const groups = await idp.store.list_groups();
  const group = group_name === "" ? null : groups.find((row) => row.name.toLowerCase() === group_name.toLowerCase());
  const browse: UserBrowse = {
    ...(q !== "" && { q }),
    ...(status !== undefined && { status }),
    ...(mfa !== "" && { second_factor: mfa === "yes" }),
    ...(group != null && { group_id: group.id }),
    sort,
    offset: (page_number - 1) * DEFAULT_PAGE,
    limit: DEFAULT_PAGE,
  };
  // An unknown group matches nobody (it may have been deleted since the link was made).
  const { users, total } = group === undefined ? { users: [], total: 0 } : await idp.store.browse_users(browse);
  const filters: Record<string, string> = { q, status: status ?? "", group: group_name, mfa, sort };
  const link = (number: number) => {
    const params = new URLSearchParams(Object.entries({ ...filters, page: String(number) }).filter(([name, value]) => value !== "" && !(name === "page" && value === "1")));
    const text = params.toString();
    return text === "" ? "" : `?${text}`;
  };
  const from = users.length === 0 ? 0 : browse.offset + 1;
  return console_values(idp, admin, "users", "Users", {
    users: users.map(public_user),
    q,
    filters,
    statuses: USER_STATUSES,
    groups: groups.map((row) => row.name),
    range: { from, to: browse.offset + users.length, total },
    previous: page_number > 1 ? link(Math.min(page_number - 1, Math.max(1, Math.ceil(total / DEFAULT_PAGE)))) : null,
    next: browse.offset + users.length < total ? link(page_number + 1) : null,
    // The bulk actions this role may take (the form is shown when there is one).
    bulk_actions: BULK_ACTIONS.filter((action) => admin.permissions.has(BULK_PERMISSIONS[action])),
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
