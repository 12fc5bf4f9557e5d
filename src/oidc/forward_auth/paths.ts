/**
 * The forward-auth endpoints' paths, below the issuer: the check a proxy calls on every request
 * (check.ts) and the start step a browser is sent to when it must sign in (start.ts). The HTTP
 * layer mounts its routes on them; the account's sign-in may return to the start step
 * (browser/return_path.ts).
 */
export const FORWARD_AUTH_PATHS = {
  check: "/forward-auth",
  start: "/forward-auth/start",
} as const;
