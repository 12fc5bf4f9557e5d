/**
 * Wraps every method of an adapter so database errors leave the store as the typed errors of
 * types.ts (conflict, reference, unavailable). Done once at open, in one place, instead of a
 * try/catch in every method.
 */
export type GuardOptions = {
  /** Errors after which the call is tried again (on another connection), up to `attempts` times in all. */
  retryIf?: (error: unknown) => boolean;
  attempts?: number;
};

export function guard<T extends object>(target: T, mapError: (error: unknown) => unknown, options: GuardOptions = {}): T {
  const { retryIf = () => false, attempts = 1 } = options;
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
          if (attempt < attempts && retryIf(error)) continue;
          throw mapError(error);
        }
      }
    };
  }
  return wrapped as T;
}

/** The `code` property most driver errors carry, or "". */
export function errorCode(error: unknown): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : "";
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
