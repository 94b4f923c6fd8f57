import { RouteRegistrationRepository } from '../../src/db/route-registration.repository'
import type { TestApp } from './test-app'

/** A scan of a 17TRACK push: when (UTC, ISO), what, and its milestone stage when it has one. */
export interface PushedScan {
  at: string
  description: string
  stage?: string
}

/**
 * The body of a 17TRACK TRACKING_UPDATED push of a Royal Mail number (key 11031), shaped like its
 * official example: `subStatus` as latest_status, `scans` newest first in one provider, placed in
 * London. `tag` changes the bytes without changing the news.
 */
export function royalMailPush(number: string, subStatus: string, scans: PushedScan[], tag = ''): string {
  const events = scans.map((e) => ({
    time_iso: e.at.replace('Z', '+00:00'),
    time_utc: e.at,
    description: e.description,
    location: 'London, GB',
    stage: e.stage ?? null,
    address: { country: 'GB', city: 'London' },
  }))
  return JSON.stringify({
    event: 'TRACKING_UPDATED',
    data: {
      number,
      carrier: 11031,
      param: null,
      tag,
      track_info: {
        latest_status: { status: subStatus.split('_')[0], sub_status: subStatus },
        latest_event: events[0] ?? null,
        tracking: { providers: [{ provider: { key: 11031 }, events }] },
      },
    },
  })
}

/** A user's Royal Mail task (served through 17TRACK), linked by its number as the registration round links it: a push finds it. */
export async function royalMailTask(t: TestApp, userId: number, trackingNumber: string): Promise<number> {
  const { taskId } = await t.services.subscriptions.subscribe(userId, { carrierCode: 'ROYALMAIL', trackingNumber, callbackUrl: 'https://shop.example/hook' })
  await new RouteRegistrationRepository(t.db).linkTasks(['ROYALMAIL'])
  return taskId
}
