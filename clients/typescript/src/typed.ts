// Typed results and events (issue 37 item 3): `result.data` as the caller's type, checked by
// a schema object the caller passes (anything with `parse(data): T`, such as a zod schema),
// and events narrowed to their type's `data` (the document's EventData_* schemas).
import type { components } from "./schema.js";

type Schemas = components["schemas"];
type TaskOut = Schemas["TaskOut"];
type EventOut = Schemas["EventOut"];

/** Anything that checks unknown data and returns it typed, or throws: a zod schema, or a
 * function wrapped as `{ parse }`. */
export interface Parser<T> {
  parse(data: unknown): T;
}

/** The task has no `result.data` (it did not succeed, or had no output_schema). */
export class NoDataError extends Error {
  constructor(task: TaskOut) {
    super(`task ${task.id} (${task.status}) has no result.data`);
    this.name = "NoDataError";
  }
}

/** The task's `result.data` checked by `parser` (whatever it throws when the data does not
 * fit); NoDataError when the task has none. */
export function dataAs<T>(task: TaskOut, parser: Parser<T>): T {
  const data = task.result?.data;
  if (data === null || data === undefined) throw new NoDataError(task);
  return parser.parse(data);
}

/** A finished task and its `result.data` as the caller's type (null without data). */
export interface TypedTask<T> {
  task: TaskOut;
  data: T | null;
}

export function typed<T>(task: TaskOut, parser: Parser<T>): TypedTask<T> {
  const data = task.result?.data;
  return { task, data: data === null || data === undefined ? null : parser.parse(data) };
}

/** Event type -> the schema of its `data`. */
export interface EventDataMap {
  "task.started": Schemas["EventData_task_started"];
  "task.finished": Schemas["EventData_task_finished"];
  "route.decided": Schemas["EventData_route_decided"];
  "route.replayed": Schemas["EventData_route_replayed"];
  "step.started": Schemas["EventData_step_started"];
  "action.executed": Schemas["EventData_action_executed"];
  observation: Schemas["EventData_observation"];
  "llm.call": Schemas["EventData_llm_call"];
  "approval.requested": Schemas["EventData_approval_requested"];
  "approval.resolved": Schemas["EventData_approval_resolved"];
  "takeover.started": Schemas["EventData_takeover_started"];
  "takeover.ended": Schemas["EventData_takeover_ended"];
  "plan.updated": Schemas["EventData_plan_updated"];
  "memory.evicted": Schemas["EventData_memory_evicted"];
  "fact.recorded": Schemas["EventData_fact_recorded"];
  "dead_end.recorded": Schemas["EventData_dead_end_recorded"];
}

export type EventType = keyof EventDataMap;

/** An event whose `data` has its type's shape. */
export type TypedEvent<K extends EventType = EventType> = {
  [P in K]: Omit<EventOut, "type" | "data"> & { type: P; data: EventDataMap[P] };
}[K];

/** Narrow an event to its type: `if (isEvent(event, "llm.call")) event.data.input_tokens`. */
export function isEvent<K extends EventType>(event: EventOut, type: K): event is EventOut & TypedEvent<K> {
  return event.type === type;
}
