import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * Replaces `file` whole: the text goes to a temporary file beside it, which is fsynced and renamed
 * over `file`, then the directory is fsynced. A crash leaves the old content or the new.
 *
 * The temporary file has a random name and is created exclusively ('wx', mode 0600): a name that
 * someone else created first (a symbolic link planted where the next write will go) fails the
 * write instead of being followed.
 */
export async function replaceFile(file: string, text: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString('hex')}.tmp`);
  const handle = await open(tmp, 'wx', 0o600);
  try {
    try {
      // the mode given to open passes through the umask; chmod does not
      await handle.chmod(0o600);
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  await syncDirectory(path.dirname(file));
}

/** fsync of a directory makes a rename in it durable (no-op where directories cannot be opened). */
export async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | null = null;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // some platforms refuse to open or fsync a directory; the rename is still atomic there
  } finally {
    await handle?.close();
  }
}
