import { ANY_METHOD, GET_INDEX, HEAD_INDEX } from "./types.ts";

/**
 * What one pattern answers, by method slot. HEAD is filled from GET until a HEAD route is
 * registered for the same pattern, so HEAD lookups cost what GET lookups cost.
 */
export class Slots<R> {
  /** One slot per method, plus ANY_METHOD which stays empty (lookups that only probe for a route). */
  readonly by_method: (R | undefined)[] = new Array<R | undefined>(ANY_METHOD + 1).fill(undefined);
  private explicit_head = false;

  put(method_index: number, value: R): void {
    this.by_method[method_index] = value;
    if (method_index === HEAD_INDEX) this.explicit_head = true;
    else if (method_index === GET_INDEX && !this.explicit_head) this.by_method[HEAD_INDEX] = value;
  }
}
