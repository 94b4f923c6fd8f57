/** The workers' services with their parts, wired as a worker process wires them (src/main/workers.ts). */
export { createRefreshService, createWebhookDelivery } from '../../src/main/workers'
