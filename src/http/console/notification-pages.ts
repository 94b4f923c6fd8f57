import type { FastifyInstance, FastifyRequest } from 'fastify'
import { TRIGGERS } from '../../domain/notifications'
import { LANGUAGES } from '../../domain/tracking-page'
import { sendFramedEmail, sendPage, type ConsoleOptions } from './console-http'
import { hide, id, query, show } from './console-pages'
import { previewView } from './notifications.view'

/** The console's previews of a user's messages: each trigger in each language as it would be sent, and the email's HTML the page frames. */
export async function notificationPages(app: FastifyInstance, o: ConsoleOptions): Promise<void> {
  const previewOf = async (request: FastifyRequest) => {
    const userId = id((request.params as Record<string, string>).userId)
    await o.users.get(userId)
    const q = query(request)
    const trigger = TRIGGERS.find((t) => t === q.trigger) ?? 'in_transit'
    const language = LANGUAGES.find((l) => l === q.language) ?? 'en'
    return { userId, trigger, language, preview: await o.notifications.preview(userId, trigger, language, new Date()) }
  }
  app.get('/users/:userId/notifications/preview', hide, async (request, reply) => {
    const { userId, trigger, language, preview } = await previewOf(request)
    return sendPage(
      reply,
      show(request, 'users', `Messages of user ${userId}: ${trigger}, ${language}`, () => previewView(userId, trigger, language, preview)),
    )
  })
  app.get('/users/:userId/notifications/preview.html', hide, async (request, reply) => sendFramedEmail(reply, (await previewOf(request)).preview.html))
}
