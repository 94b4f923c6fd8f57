/** The refresh service with its parts, wired as a worker process wires it (src/main/workers.ts). */
export { createRefreshService } from '../../src/main/workers'
