/** GET /scim/v2/Users: a page of users, filtered, sorted, projected (RFC 7644 §3.4.2). */
import { Fw } from "../../../../fw/index.ts";
import { projected_list } from "../../../../oidc/scim/list.ts";
import { scim_of } from "../../../../oidc/scim/operations.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { SCIM, ScimQuery, scim_target } from "../common.ts";

export const ScimUserList = (idp: Provider) =>
  class ScimUserList extends Fw.Endpoint(ScimQuery, Fw.Response.Json) {
    static route = `GET ${SCIM}/Users`;

    async call() {
      const query = this.scim_query;
      const { body, results } = await projected_list(scim_of(idp), "User", {
        filter: query.filter,
        sort_by: query.sortBy,
        sort_order: query.sortOrder,
        start_index: query.startIndex,
        count: query.count,
        attributes: query.attributes,
        excluded_attributes: query.excludedAttributes,
      });
      scim_target(this, { action: "users_listed", details: { results } });
      this.response.headers.set("content-type", "application/scim+json; charset=utf-8");
      return this.json(body);
    }
  };
