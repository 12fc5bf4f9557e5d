/** The SCIM 2.0 endpoints under /scim/v2 (RFC 7644), one per file. */
import type { Provider } from "../../../oidc/provider.ts";
import { ScimBulk } from "./bulk.ts";
import { ScimGroupCreate } from "./groups/create.ts";
import { ScimGroupDelete } from "./groups/delete.ts";
import { ScimGroupList } from "./groups/list.ts";
import { ScimGroupPatch } from "./groups/patch.ts";
import { ScimGroupRead } from "./groups/read.ts";
import { ScimGroupReplace } from "./groups/replace.ts";
import { ScimResourceType } from "./resource_type.ts";
import { ScimResourceTypes } from "./resource_types.ts";
import { ScimSchema } from "./schema.ts";
import { ScimSchemas } from "./schemas.ts";
import { ScimServiceProviderConfig } from "./service_provider_config.ts";
import { ScimUserCreate } from "./users/create.ts";
import { ScimUserDelete } from "./users/delete.ts";
import { ScimUserList } from "./users/list.ts";
import { ScimUserPatch } from "./users/patch.ts";
import { ScimUserRead } from "./users/read.ts";
import { ScimUserReplace } from "./users/replace.ts";

export function scim_endpoints(idp: Provider) {
  return [
    ScimServiceProviderConfig(idp),
    ScimResourceTypes(idp),
    ScimResourceType(idp),
    ScimSchemas(idp),
    ScimSchema(idp),
    ScimUserList(idp),
    ScimUserRead(idp),
    ScimUserCreate(idp),
    ScimUserReplace(idp),
    ScimUserPatch(idp),
    ScimUserDelete(idp),
    ScimGroupList(idp),
    ScimGroupRead(idp),
    ScimGroupCreate(idp),
    ScimGroupReplace(idp),
    ScimGroupPatch(idp),
    ScimGroupDelete(idp),
    ScimBulk(idp),
  ];
}
