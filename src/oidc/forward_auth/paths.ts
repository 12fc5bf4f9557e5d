/**
 * The forward-auth endpoints' paths, below the issuer: the check a proxy calls on every request
 * (check.ts), the start step a browser is sent to when it must sign in (start.ts), and the
 * callback that sets an application's host-only cookie (callback.ts), which the proxy forwards
 * from the application's own host. The HTTP layer mounts its routes on them; the account's
 * sign-in may return to the start step (browser/return_path.ts).
 */
export const FORWARD_AUTH_PATHS = {
  check: "/forward-auth",
  start: "/forward-auth/start",
  callback: "/forward-auth/callback",
} as const;

/**
 * The path on an application's own host that its proxy forwards to the callback
 * (deploy/forward-auth/): reserved on every application outside the cookie domain.
 */
export const APP_CALLBACK_PATH = "/.idp/callback";
