/**
 * Wraps every method of an adapter so database errors leave the store as the typed errors of
 * types.ts (conflict, reference, unavailable). Done once at open, in one place, instead of a
 * try/catch in every method.
 */
export type GuardOptions = {
  /** Errors after which the call is tried again (on another connection), up to `attempts` times in all. */
  retry_if?: (error: unknown) => boolean;
  attempts?: number;
};

export function guard<T extends object>(target: T, map_error: (error: unknown) => unknown, options: GuardOptions = {}): T {
  const { retry_if = () => false, attempts = 1 } = options;
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(target)) {
    if (typeof value !== "function") {
      wrapped[name] = value;
      continue;
    }
    const method = value as (...args: unknown[]) => unknown;
    wrapped[name] = async (...args: unknown[]): Promise<unknown> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await method(...args);
        } catch (error) {
          if (attempt < attempts && retry_if(error)) continue;
          throw map_error(error);
        }
      }
    };
  }
  return wrapped as T;
}

/** The `code` property most driver errors carry, or "". */
export function error_code(error: unknown): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : "";
}

export function error_message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
