// stream.ts where the runtime has no direct streams (Deno): a web ReadableStream with no buffer
// of its own (highWaterMark 0), so each part is produced when the connection asks for it and
// sent as it comes; a client that goes away ends the source (its `return`).

const encoder = new TextEncoder();

export function stream_body(source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>): ReadableStream<Uint8Array> {
  let parts: AsyncIterator<string | Uint8Array> | Iterator<string | Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        parts ??= Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
        const next = await parts.next();
        if (next.done) controller.close();
        else controller.enqueue(typeof next.value === "string" ? encoder.encode(next.value) : next.value);
      },
      async cancel() {
        await parts?.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
