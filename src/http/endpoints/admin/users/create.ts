/** POST /admin/api/v1/users: a new user with a password (the rules of `idp users add`). */
import { Fw } from "../../../../fw/index.ts";
import { create_user_with_password } from "../../../../oidc/admin/users.ts";
import type { Provider } from "../../../../oidc/provider.ts";
import { ADMIN_API, audit_target, with_etag, type OpenApiOperation } from "../common.ts";
import { UserCreateSchema, UserSchema } from "../schemas.ts";
import { user_view } from "./find.ts";

export const AdminUserCreateRequest = Fw.Request("AdminUserCreateRequest", UserCreateSchema, { from: ["body"] });

export const AdminUserCreate = (idp: Provider) =>
  class AdminUserCreate extends Fw.Endpoint(AdminUserCreateRequest, Fw.Response.Json) {
    static route = `POST ${ADMIN_API}/users`;
    static openapi: OpenApiOperation = { summary: "Create a user with a password", tag: "users", body: UserCreateSchema, response: UserSchema, status: 201, etag: true };

    async call() {
      const { username, password, ...profile } = this.admin_user_create_request;
      const checked = username.normalize("NFC");
      const user = await create_user_with_password(idp.store, idp.config, { ...profile, username: checked }, password);
      audit_target(this, { action: "user_created", user_id: user.id });
      this.response.headers.set("location", `${ADMIN_API}/users/${user.id}`);
      return this.json(with_etag(this, await user_view(idp, user)), 201);
    }
  };
