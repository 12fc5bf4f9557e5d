/**
 * The RFC 6238 parameters of the codes (signin/totp.ts), in a module of their own so that what
 * is sized from them (the step-claim counter's window, limits/counters.ts) reads them without
 * importing the code that uses that counter.
 */

/** RFC 6238 §5.2: "We RECOMMEND a default time-step size of 30 seconds." */
export const TOTP_PERIOD = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted before and after the current one (RFC 6238 §5.2, §6). */
export const TOTP_DRIFT_STEPS = 1;
