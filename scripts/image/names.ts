/**
 * The container image's fixed names, shared by the build (scripts/image.ts, rootfs.ts), the
 * deployments in deploy/ and their tests: a leaf with no imports, so any runtime reads it.
 */

/** The repository name of the archive's tags (`idp:<version>`, `idp:latest`). */
export const IMAGE_NAME = "idp";
/** The container's user and group: not root, and not a uid a host is likely to use (distroless's "nonroot"). */
export const USER = { name: "idp", uid: 65532, gid: 65532 } as const;
/** Where the executable is, on the image's PATH. */
export const EXECUTABLE = "/usr/local/bin/idp";
/** The one writable place: the volume that holds the SQLite file, and the working directory. */
export const DATA_DIR = "/data";
