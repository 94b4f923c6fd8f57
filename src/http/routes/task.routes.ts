import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { objectText, RawJson, withMembers } from '../../domain/json-text'
import type { NotificationService } from '../../services/notification.service'
import { FullTaskWithRecipientAnswer } from '../schemas/notification.schema'
import type { CarrierChangeService } from '../../services/carrier-change.service'
import type { TaskService } from '../../services/task.service'
import { asJsonText, envelope, JsonAnswer, success, successText } from '../envelope'
import { API_ERRORS, BODY_ERRORS, errors } from '../schemas/common.schema'
import { CarrierChangeBody, Deleted, FullTaskAnswer, ListQuery, RefreshAccepted, TaskPageAnswer, TaskParams } from '../schemas/task-lifecycle.schema'

const tags = ['tasks']

/** The task beyond the interface: the full task, the list, stop, refresh now, carrier change, delete. */
export const taskRoutes: FastifyPluginAsyncTypebox<{ tasks: TaskService; changes: CarrierChangeService; notifications: NotificationService }> = async (
  app,
  { tasks, changes, notifications },
) => {
  app.get(
    '/openapi/tracking-subscriptions/list',
    {
      schema: {
        operationId: 'listTasks',
        summary: "List the user's tasks: filters, sorts, keyset pages",
        tags,
        querystring: ListQuery,
        response: { 200: Type.Unsafe<JsonAnswer>(TaskPageAnswer), ...errors(...API_ERRORS, 400) },
      },
    },
    async (request, reply) => {
      const page = await tasks.list(request.userId, request.query)
      asJsonText(reply)
      const items = new RawJson(`[${page.items.join(',')}]`)
      return successText(
        objectText([
          ['items', items],
          ['nextCursor', page.nextCursor],
        ]),
      )
    },
  )

  app.get(
    '/openapi/tracking-subscriptions/:taskId',
    {
      schema: {
        operationId: 'getTask',
        summary: 'The full task, with its recipient and the messages sent to them',
        tags,
        params: TaskParams,
        response: { 200: Type.Unsafe<JsonAnswer>(FullTaskWithRecipientAnswer), ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request, reply) => {
      const task = await tasks.get(request.userId, request.params.taskId)
      const { recipient, notifications: messages } = await notifications.ofTask(request.userId, request.params.taskId)
      asJsonText(reply)
      return successText(
        withMembers(task, [
          ['recipient', recipient],
          ['notifications', messages],
        ]),
      )
    },
  )

  app.post(
    '/openapi/tracking-subscriptions/:taskId/stop',
    {
      schema: {
        operationId: 'stopTask',
        summary: 'Stop fetching the task (idempotent); deliveries already made still go out',
        tags,
        params: TaskParams,
        response: { 200: Type.Unsafe<JsonAnswer>(FullTaskAnswer), ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request, reply) => {
      const task = await tasks.stop(request.userId, request.params.taskId)
      asJsonText(reply)
      return successText(task)
    },
  )

  app.post(
    '/openapi/tracking-subscriptions/:taskId/refresh',
    {
      schema: {
        operationId: 'refreshTask',
        summary: 'Fetch the task now (active again, stopped or expired ones too); at most once a minute',
        tags,
        params: TaskParams,
        response: { 202: RefreshAccepted, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request, reply) => {
      const { taskId, nextCheckAt } = await tasks.refresh(request.userId, request.params.taskId)
      return reply.code(202).send(envelope(202 as const, { taskId, nextCheckAt: nextCheckAt.toISOString() }, 'success' as const))
    },
  )

  app.patch(
    '/openapi/tracking-subscriptions/:taskId',
    {
      schema: {
        operationId: 'changeTaskCarrier',
        summary: 'Move the task to another carrier: it starts again as pending with no events, due now, keeping its id, page and webhooks',
        description:
          'At most 5 changes a task (409 limit_reached after). 409 conflict when another task of the caller already tracks the number with that carrier (`data.taskId`). AUTO picks as on subscribe (400 carrier_not_detected when it cannot). Account endpoints that chose `tracking.carrier_changed` are told.',
        tags,
        params: TaskParams,
        body: CarrierChangeBody,
        response: { 200: Type.Unsafe<JsonAnswer>(FullTaskAnswer), ...errors(...API_ERRORS, ...BODY_ERRORS, 404, 409) },
      },
    },
    async (request, reply) => {
      const task = await changes.change(request.userId, request.params.taskId, request.body.carrierCode)
      asJsonText(reply)
      return successText(task)
    },
  )

  app.delete(
    '/openapi/tracking-subscriptions/:taskId',
    {
      schema: {
        operationId: 'deleteTask',
        summary: 'Delete the task with its events and webhooks; subscribing the number again makes a new task',
        tags,
        params: TaskParams,
        response: { 200: Deleted, ...errors(...API_ERRORS, 400, 404) },
      },
    },
    async (request) => success(await tasks.delete(request.userId, request.params.taskId)),
  )
}
