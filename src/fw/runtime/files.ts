// Files from disk as response bodies: the runtime's lazy file handle, read as it is sent.

/** The file at `path` as a body, or null when nothing is there. */
export async function existing_file(path: string): Promise<Blob | null> {
  const file = Bun.file(path);
  return (await file.exists()) ? file : null;
}
