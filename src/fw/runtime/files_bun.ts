// files.ts on Bun: Bun's lazy file handle, read as it is sent.

export async function existing_file(path: string): Promise<Blob | null> {
  const file = Bun.file(path);
  return (await file.exists()) ? file : null;
}
