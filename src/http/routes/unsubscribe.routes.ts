import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import { chooseLanguage, DEFAULT_BRAND } from '../../domain/tracking-page'
import type { NotificationService } from '../../services/notification.service'
import { unsubscribeHtml, unsubscribeNotFoundHtml } from '../pages/unsubscribe.view'
import { errors } from '../schemas/common.schema'

const UnsubscribeParams = Type.Object({ token: Type.String({ maxLength: 64 }) })
const tags = ['notifications']
const HtmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } })

/** Headers of every answer of /u/: not indexed, not cached, no script; the page's form posts to itself. */
function pageHeaders(reply: FastifyReply): void {
  reply.headers({
    'x-robots-tag': 'noindex, nofollow',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src https:; base-uri 'none'; form-action 'self'",
  })
}

/**
 * /u/{token}: unsubscribe from a shop's messages. GET shows the page and its button; POST
 * unsubscribes: a mail client's one-click POST (RFC 8058, `List-Unsubscribe=One-Click`) gets 200
 * and no body, the page's own form the page that says it is done. No authentication: the token
 * is the key. An unknown token is a 404 page, the same for every token.
 */
export const unsubscribeRoutes: FastifyPluginAsyncTypebox<{ notifications: NotificationService }> = async (app, { notifications }) => {
  // The bodies a form or a mail client sends: read as text, never more than a line's worth.
  app.addContentTypeParser(['application/x-www-form-urlencoded', 'multipart/form-data'], { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) =>
    done(null, body),
  )

  const pageOf = (operationId: string, summary: string, description?: string) => ({
    schema: {
      operationId,
      summary,
      ...(description ? { description } : {}),
      tags,
      security: [],
      params: UnsubscribeParams,
      response: {
        ...errors(429),
        200: HtmlPage('the page and its button, or that the address is unsubscribed already'),
        404: HtmlPage('no address has this token: the same page for every such token'),
      },
    },
  })
  const html = (reply: FastifyReply, page: { text: string }, code = 200) => reply.code(code).type('text/html; charset=utf-8').send(page.text)

  app.get('/u/:token', pageOf('unsubscribePage', "The unsubscribe page of a customer's address, in their language"), async (request, reply) => {
    pageHeaders(reply)
    const view = await notifications.unsubscribeView(request.params.token)
    if (!view) return html(reply, unsubscribeNotFoundHtml(chooseLanguage(undefined, request.headers['accept-language'], DEFAULT_BRAND.defaultLanguage)), 404)
    return html(reply, unsubscribeHtml(view.language, view.brand, view.unsubscribed ? 'done' : 'ask'))
  })

  app.post(
    '/u/:token',
    pageOf(
      'unsubscribe',
      "Unsubscribe: one click (RFC 8058) or the page's button",
      'A body holding `List-Unsubscribe=One-Click` (urlencoded or multipart, as mail clients send it) is answered 200 with no body; any other, the page saying it is done.',
    ),
    async (request, reply) => {
      pageHeaders(reply)
      const view = await notifications.unsubscribe(request.params.token)
      if (!view) return html(reply, unsubscribeNotFoundHtml(DEFAULT_BRAND.defaultLanguage), 404)
      const oneClick = typeof request.body === 'string' && request.body.includes('List-Unsubscribe=One-Click')
      if (oneClick) return reply.code(200).send()
      return html(reply, unsubscribeHtml(view.language, view.brand, 'done'))
    },
  )
}
