// files.ts on Deno: the file opened and streamed as it is sent.

/** A regular file at `path` as a stream, null when nothing (or a folder) is there; throws when it may not be read (NotCapable). */
export async function existing_file(path: string): Promise<ReadableStream<Uint8Array> | null> {
  try {
    if (!(await Deno.stat(path)).isFile) return null;
    return (await Deno.open(path, { read: true })).readable;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
