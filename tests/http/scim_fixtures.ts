/**
 * The request sequences Microsoft Entra ID and Okta send to a SCIM endpoint, written from their
 * public documentation: Microsoft Learn "Tutorial: Develop and plan provisioning for a SCIM
 * endpoint in Microsoft Entra ID" (its "User operations" and "Group operations" request
 * examples), and Okta's "SCIM 2.0 protocol reference" / "Test your SCIM API" (Runscope) flows.
 * The values (ids, names) are the documents' own where they give them.
 */
export const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** Entra ID: Create User (the documented request body, roles and meta included). */
export const entra_create_user = {
  schemas: [USER, ENTERPRISE],
  externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
  userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
  active: true,
  emails: [{ primary: true, type: "work", value: "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com" }],
  meta: { resourceType: "User" },
  name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
  roles: [],
};

/** Entra ID: Update User [Multi-valued properties] and [Single-valued properties]. */
export const entra_patch_profile = {
  schemas: [PATCH_OP],
  Operations: [
    { op: "Replace", path: 'emails[type eq "work"].value', value: "updatedEmail@microsoft.com" },
    { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
    { op: "Replace", path: "userName", value: "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com" },
  ],
};

/** Entra ID: Disable User (Entra ID sends the boolean as a string). */
export const entra_disable = { schemas: [PATCH_OP], Operations: [{ op: "Replace", path: "active", value: "False" }] };

/** Entra ID: Update User manager (the enterprise extension; the manager's id alone). */
export const entra_manager = (manager_id: string) => ({
  schemas: [PATCH_OP],
  Operations: [{ op: "Add", path: `${ENTERPRISE}:manager`, value: manager_id }],
});

/** Entra ID: Create Group. */
export const entra_create_group = {
  schemas: [GROUP, "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/Group"],
  externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
  displayName: "displayName",
  meta: { resourceType: "Group" },
};

/** Entra ID: Update Group [Add Members] and [Remove Members]. */
export const entra_add_member = (user_id: string) => ({ schemas: [PATCH_OP], Operations: [{ op: "Add", path: "members", value: [{ $ref: null, value: user_id }] }] });
export const entra_remove_member = (user_id: string) => ({ schemas: [PATCH_OP], Operations: [{ op: "Remove", path: "members", value: [{ $ref: null, value: user_id }] }] });

/** Okta: Create the user (POST /Users, with a password). */
export const okta_create_user = {
  schemas: [USER],
  userName: "test.user@okta.local",
  name: { givenName: "Test", familyName: "User" },
  emails: [{ primary: true, value: "test.user@okta.local", type: "work" }],
  displayName: "Test User",
  locale: "en-US",
  externalId: "00ujl29u0le5T6Aj10h7",
  groups: [],
  password: "1mz050nq-Okta-Pass!",
  active: true,
};

/** Okta: Update a specific user (PUT, the whole user again). */
export const okta_replace_user = (id: string) => ({
  schemas: [USER],
  id,
  userName: "test.user@okta.local",
  name: { givenName: "Another", familyName: "User" },
  emails: [{ primary: true, value: "test.user@okta.local", type: "work" }],
  displayName: "Another User",
  locale: "en-US",
  externalId: "00ujl29u0le5T6Aj10h7",
  groups: [],
  active: true,
});

/** Okta: Deactivate / reactivate a user (PATCH replace without a path). */
export const okta_active = (active: boolean) => ({ schemas: [PATCH_OP], Operations: [{ op: "replace", value: { active } }] });

/** Okta: Create Group, then push members and rename. */
export const okta_create_group = { schemas: [GROUP], displayName: "Test SCIMv2", members: [] };
export const okta_add_members = (user_id: string) => ({
  schemas: [PATCH_OP],
  Operations: [{ op: "add", path: "members", value: [{ value: user_id, display: "test.user@okta.local" }] }],
});
export const okta_remove_member = (user_id: string) => ({ schemas: [PATCH_OP], Operations: [{ op: "remove", path: `members[value eq "${user_id}"]` }] });
export const okta_rename_group = (id: string) => ({ schemas: [PATCH_OP], Operations: [{ op: "replace", value: { id, displayName: "Test SCIMv2 renamed" } }] });
