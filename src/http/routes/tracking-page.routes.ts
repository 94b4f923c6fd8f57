import { createHash } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { byQuality, chooseLanguage, DEFAULT_BRAND } from '../../domain/tracking-page'
import type { TrackingPageService } from '../../services/tracking-page.service'
import { AppError } from '../../domain/errors'
import { success } from '../envelope'
import { sendError } from '../error-handler'
import { accentStyle, notFoundHtml, trackingPageHtml, TRACKING_PAGE_CSS } from '../pages/tracking-page.view'
import { API_ERRORS, BODY_ERRORS, ErrorEnvelope, errors, ref } from '../schemas/common.schema'
import { Type } from '@sinclair/typebox'
import { TaskParams } from '../schemas/task-lifecycle.schema'
import { PageParams, PageRotated, TrackingPageAnswer, TrackingPageBrandAnswer, TrackingPageBrandSchema } from '../schemas/tracking-page.schema'

const tags = ['tracking page']

/** The branding of the caller's pages and a task's new page token: under /openapi, behind the bearer token. */
export const trackingPageApiRoutes: FastifyPluginAsyncTypebox<{ pages: TrackingPageService }> = async (app, { pages }) => {
  app.get(
    '/openapi/tracking-page',
    {
      schema: {
        operationId: 'getTrackingPageBrand',
        summary: "The branding of the caller's tracking pages",
        tags,
        response: { 200: TrackingPageBrandAnswer, ...errors(...API_ERRORS) },
      },
    },
    async (request) => success(await pages.brand(request.userId)),
  )

  app.put(
    '/openapi/tracking-page',
    {
      schema: {
        operationId: 'putTrackingPageBrand',
        summary: "Replace the branding of the caller's tracking pages",
        tags,
        body: TrackingPageBrandSchema,
        response: { 200: TrackingPageBrandAnswer, ...errors(...API_ERRORS, ...BODY_ERRORS) },
      },
    },
    async (request) => success(await pages.saveBrand(request.userId, request.body)),
  )

  app.post(
    '/openapi/tracking-subscriptions/:taskId/tracking-page/rotate',
    {
      schema: {
        operationId: 'rotateTrackingPage',
        summary: "Give the task's tracking page a new URL; the old one answers 404 at once",
        tags,
        params: TaskParams,
        response: { 200: PageRotated, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request) => success({ trackingPageUrl: await pages.rotate(request.userId, request.params.taskId) }),
  )
}

/** Headers of every answer of /t/: not indexed, no referrer leaves it, no script runs. */
function pageHeaders(reply: FastifyReply, styleHash?: string): void {
  reply.headers({
    'x-robots-tag': 'noindex, nofollow',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'content-security-policy': `default-src 'none'; style-src 'self'${styleHash ? ` '${styleHash}'` : ''}; img-src https:; base-uri 'none'; form-action 'none'`,
    vary: 'Accept, Accept-Language',
  })
}

/** Whether the caller asks for the JSON twin: application/json preferred to text/html (by q, then order). */
export function prefersJson(accept: string | undefined): boolean {
  const types = byQuality(accept)
  const q = (type: string) => types.find((r) => r.value === type)?.q ?? 0
  return q('application/json') > q('text/html')
}

const etagOf = (body: string) => `W/"${createHash('sha1').update(body).digest('base64url')}"`

/** The public pages: /t/{token} (HTML, or JSON when asked) and their stylesheet. No authentication: the token is the key. */
export const trackingPageRoutes: FastifyPluginAsyncTypebox<{ pages: TrackingPageService }> = async (app, { pages }) => {
  app.get('/t/assets/page.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').header('x-content-type-options', 'nosniff').type('text/css; charset=utf-8').send(TRACKING_PAGE_CSS),
  )

  app.get(
    '/t/:token',
    {
      schema: {
        operationId: 'trackingPage',
        summary: 'The public tracking page of a task, for the shop’s customers',
        description:
          'HTML for a browser; the same content as JSON with `Accept: application/json` (CORS open). `?lang=en|de|fr|es` beats Accept-Language, which beats the shop’s defaultLanguage; other query parameters are ignored. Unknown, replaced and deleted tasks’ tokens answer the same 404. `Cache-Control: private, max-age=60` and a weak ETag (304 on If-None-Match).',
        tags,
        security: [],
        params: PageParams,
        response: {
          ...errors(429),
          200: {
            description: 'the page: HTML, or its content as JSON with `Accept: application/json`',
            content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: TrackingPageAnswer } },
          },
          304: { description: 'not modified: the ETag of If-None-Match is still the page’s', type: 'null' },
          404: {
            description: 'no page has this token: the same page for every such token, or the Error envelope with `Accept: application/json`',
            content: { 'text/html': { schema: Type.String() }, 'application/json': { schema: ref(ErrorEnvelope) } },
          },
        },
      },
    },
    async (request: FastifyRequest<{ Params: { token: string }; Querystring: Record<string, unknown> }>, reply) => {
      const lang = typeof request.query.lang === 'string' ? request.query.lang : undefined
      const acceptLanguage = request.headers['accept-language']
      const json = prefersJson(request.headers.accept)
      // A token is 32 characters: a longer one is no page's, and not worth a lookup.
      const page = request.params.token.length <= 64 ? await pages.page(request.params.token, { lang, acceptLanguage }) : undefined
      if (json) reply.header('access-control-allow-origin', '*')
      if (!page) {
        pageHeaders(reply)
        reply.header('cache-control', 'no-store')
        if (json) return sendError(reply, new AppError('not_found', 'tracking page not found'))
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(notFoundHtml(chooseLanguage(lang, acceptLanguage, DEFAULT_BRAND.defaultLanguage)).text)
      }
      const body = json ? JSON.stringify(success(page)) : trackingPageHtml(page).text
      const styleHash = json ? undefined : `sha256-${createHash('sha256').update(accentStyle(page)).digest('base64')}`
      pageHeaders(reply, styleHash)
      const etag = etagOf(body)
      reply.header('cache-control', 'private, max-age=60').header('etag', etag)
      if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).send()
      return reply.type(json ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8').send(body)
    },
  )
}
