/**
 * The admin API's representations of protected applications (forward authentication, zod) and
 * their OpenAPI components. Rules are written as `idp apps --rule` writes them,
 * `PREFIX=GROUPS[+2fa]` (oidc/forward_auth/apps.ts), in requests and answers alike: what a GET
 * answers can be sent back unchanged. The checks are oidc/admin/apps.ts's.
 */
import { z } from "zod";
import { not_found } from "../../../../oidc/admin/errors.ts";
import { MAX_GROUPS, MAX_RULES, format_rule } from "../../../../oidc/forward_auth/apps.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import type { ProtectedAppRow } from "../../../../store/types.ts";
import { ADMIN_API } from "../common.ts";

export const APPS_API = `${ADMIN_API}/apps`;

const time = z.number().int().describe("Unix seconds");
const rule = z.string().min(1).max(4096).describe("PREFIX=GROUPS[+2fa]: who may open the paths under PREFIX (groups comma-separated, or *), +2fa for a second factor");

export const ProtectedAppSchema = z
  .object({
    name: z.string(),
    url: z.string(),
    host: z.string(),
    path: z.string(),
    allowed_groups: z.array(z.string()).describe("members of any of them may open it; empty: any signed-in user"),
    require_2fa: z.boolean(),
    rules: z.array(rule),
    created_at: time,
    updated_at: time,
  })
  .meta({ id: "ProtectedApp" });

const FIELDS = {
  url: z.string().min(1).max(2048).describe("https://app.example.com[/path]"),
  allowed_groups: z.array(z.string().min(1).max(256)).max(MAX_GROUPS),
  require_2fa: z.boolean(),
  rules: z.array(rule).max(MAX_RULES).describe("replaces every rule"),
};

export const ProtectedAppCreateSchema = z
  .strictObject({
    name: z.string().min(1).max(64),
    url: FIELDS.url,
    allowed_groups: FIELDS.allowed_groups.optional(),
    require_2fa: FIELDS.require_2fa.optional(),
    rules: FIELDS.rules.optional(),
  })
  .meta({ id: "ProtectedAppCreate" });

export const ProtectedAppPatchSchema = z
  .strictObject({ url: FIELDS.url.optional(), allowed_groups: FIELDS.allowed_groups.optional(), require_2fa: FIELDS.require_2fa.optional(), rules: FIELDS.rules.optional() })
  .meta({ id: "ProtectedAppPatch" });

export type ProtectedAppView = z.infer<typeof ProtectedAppSchema>;

export function app_view(app: ProtectedAppRow): ProtectedAppView {
  return {
    name: app.name,
    url: app.url,
    host: app.host,
    path: app.path,
    allowed_groups: app.allowed_groups,
    require_2fa: app.require_2fa,
    rules: app.rules.map(format_rule),
    created_at: app.created_at,
    updated_at: app.updated_at,
  };
}

export async function app_of(idp: Provider, name: string): Promise<ProtectedAppRow> {
  const app = await idp.store.get_protected_app(name);
  if (app === null) throw not_found("application", name);
  return app;
}
