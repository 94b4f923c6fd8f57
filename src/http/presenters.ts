export { taskToJson as presentTask } from '../domain/tracking-task'

export function success<T>(data: T) {
  return { code: 200, data, msg: 'success' }
}
