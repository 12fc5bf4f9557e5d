// stream.ts on Bun: a direct stream, whose write() then flush() sends a part at once.

/** Bun's direct-stream controller. */
interface DirectController {
  write(part: string | Uint8Array): unknown;
  flush(): unknown;
  close(): void;
}

export function stream_body(source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>): ReadableStream {
  return new ReadableStream({
    type: "direct",
    async pull(controller: DirectController) {
      for await (const part of source) {
        controller.write(part);
        await controller.flush();
      }
      controller.close();
    },
  } as unknown as UnderlyingDefaultSource);
}
