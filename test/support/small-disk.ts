import { execFileSync } from 'node:child_process'
import { mkdtempSync, openSync, closeSync, rmSync, statfsSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A small file system of the test's own (a tmpfs; mounting one needs root, which CI and the test
 * machines are), to fill up under a database and free again.
 */
export interface SmallDisk {
  dir: string
  /** Writes a filler file until the file system is full (ENOSPC). */
  fill(): void
  /** Removes the filler. */
  free(): void
  freeBytes(): number
  unmount(): void
}

export function mountSmallDisk(sizeMb: number): SmallDisk {
  if (process.getuid?.() !== 0) throw new Error('the full-disk test mounts a tmpfs, which needs root (CI runs as root)')
  const dir = mkdtempSync(join(tmpdir(), 'small-disk-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', dir])
  const filler = join(dir, 'filler')
  const freeBytes = () => {
    const stats = statfsSync(dir)
    return stats.bavail * stats.bsize
  }
  return {
    dir,
    freeBytes,
    fill() {
      const fd = openSync(filler, 'a')
      const block = Buffer.alloc(1 << 20, 1)
      try {
        for (;;) writeSync(fd, block.subarray(0, Math.max(4096, Math.min(block.length, freeBytes()))))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      } finally {
        closeSync(fd)
      }
    },
    free: () => rmSync(filler, { force: true }),
    unmount() {
      execFileSync('umount', ['-l', dir])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
