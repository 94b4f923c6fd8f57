import { taskViewToJsonText, type TaskView } from '../domain/tracking-task'

export function success<T>(data: T) {
  return { code: 200, data, msg: 'success' }
}

/**
 * The query's success answer as JSON text: `success(taskToJson(task))`, written without
 * re-serialising the events, which arrive as JSON already (see TaskView).
 */
export function successTaskJsonText(view: TaskView): string {
  return `{"code":200,"data":${taskViewToJsonText(view)},"msg":"success"}`
}
