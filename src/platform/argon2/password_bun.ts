/** argon2id through Bun.password (Zig's argon2, on Bun's own thread pool): passwords.ts's fallback on Bun. */

export const bun_password = {
  async verify(password: string, hash: string): Promise<boolean> {
    try {
      return await Bun.password.verify(password, hash, "argon2id");
    } catch {
      return false;
    }
  },
  hash(password: string, params: { memory_kib: number; time_cost: number }): Promise<string> {
    return Bun.password.hash(password, { algorithm: "argon2id", memoryCost: params.memory_kib, timeCost: params.time_cost });
  },
};
