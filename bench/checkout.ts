import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** This checkout's root. */
export const ROOT = fileURLToPath(new URL('../', import.meta.url))

/**
 * An earlier commit checked out beside this one for an A/B: .tmp/ab-<commit>, a git worktree with
 * its own `npm ci`, made once and kept for the next run.
 */
export function checkoutOf(against: string): { commit: string; dir: string } {
  const commit = execFileSync('git', ['rev-parse', '--short', against], { cwd: ROOT }).toString().trim()
  const dir = join(ROOT, '.tmp', `ab-${commit}`)
  if (!existsSync(dir)) execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: ROOT, stdio: 'inherit' })
  if (!existsSync(join(dir, 'node_modules'))) execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' })
  return { commit, dir }
}
