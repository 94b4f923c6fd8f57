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

  app.get(
    '/u/:token',
    {
      schema: {
        operationId: 'unsubscribePage',
        summary: "The unsubscribe page of a customer's address, in their language",
        tags,
        params: UnsubscribeParams,
        response: {
          ...errors(429),
          200: HtmlPage('the page and its button, or that the address is unsubscribed already'),
          404: HtmlPage('no address has this token: the same page for every such token'),
        },
      },
    },
    async (request, reply) => {
      pageHeaders(reply)
      const view = await notifications.unsubscribeView(request.params.token)
      if (!view)
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(unsubscribeNotFoundHtml(chooseLanguage(undefined, request.headers['accept-language'], DEFAULT_BRAND.defaultLanguage)).text)
      return reply.type('text/html; charset=utf-8').send(unsubscribeHtml(view.language, view.brand, view.unsubscribed ? 'done' : 'ask').text)
    },
  )

  app.post(
    '/u/:token',
    {
      schema: {
        operationId: 'unsubscribe',
        summary: "Unsubscribe: one click (RFC 8058) or the page's button",
        tags,
        params: UnsubscribeParams,
        response: {
          ...errors(429),
          200: HtmlPage('the page and its button, or that the address is unsubscribed already'),
          404: HtmlPage('no address has this token: the same page for every such token'),
        },
      },
    },
    async (request, reply) => {
      pageHeaders(reply)
      const view = await notifications.unsubscribeView(request.params.token)
      if (!view || !(await notifications.unsubscribe(request.params.token)))
        return reply.code(404).type('text/html; charset=utf-8').send(unsubscribeNotFoundHtml(DEFAULT_BRAND.defaultLanguage).text)
      const oneClick = typeof request.body === 'string' && request.body.includes('List-Unsubscribe=One-Click')
      if (oneClick) return reply.code(200).send()
      return reply.type('text/html; charset=utf-8').send(unsubscribeHtml(view.language, view.brand, 'done').text)
    },
  )
}
