/**
 * A bounded cache of lookups keyed by (method slot, path), with generation swap: entries go
 * into the young generation; when it reaches half the capacity it becomes the old one and the
 * previous old one is dropped. A hit in the old generation is copied to the young one, so paths
 * in steady use survive. At most `capacity` entries are held at any time.
 */
export class PathCache<R> {
  private young: Map<string, R>[];
  private old: Map<string, R>[];
  private young_count = 0;
  private old_count = 0;
  private readonly limit: number;

  constructor(
    readonly capacity: number,
    private readonly slots: number,
  ) {
    this.limit = Math.max(1, capacity >> 1);
    this.young = fresh(slots);
    this.old = fresh(slots);
  }

  /** Entries held now, old and young generations together. */
  get size(): number {
    return this.young_count + this.old_count;
  }

  get(slot: number, path: string): R | undefined {
    const hit = this.young[slot]!.get(path);
    if (hit !== undefined || this.old_count === 0) return hit;
    const old = this.old[slot]!.get(path);
    if (old !== undefined) this.set(slot, path, old);
    return old;
  }

  /** Call only after `get` missed for this key. */
  set(slot: number, path: string, value: R): void {
    if (this.young_count >= this.limit) {
      // capacity 1 has no room for an old generation
      if (this.capacity >= 2) {
        this.old = this.young;
        this.old_count = this.young_count;
      } else {
        this.old = fresh(this.slots);
        this.old_count = 0;
      }
      this.young = fresh(this.slots);
      this.young_count = 0;
    }
    this.young[slot]!.set(path, value);
    this.young_count++;
  }

  clear(): void {
    if (this.young_count + this.old_count === 0) return;
    this.young = fresh(this.slots);
    this.old = fresh(this.slots);
    this.young_count = this.old_count = 0;
  }
}

function fresh<R>(slots: number): Map<string, R>[] {
  return Array.from({ length: slots }, () => new Map<string, R>());
}
