// TypeScript client of the webagent task API: types generated from docs/openapi.json
// (src/schema.ts, `npm run generate`), a small fetch wrapper, SSE following with resume.
import type { components } from "./schema.js";
import { ApiError, errorFor } from "./errors.js";
import { lines, parseSSE } from "./sse.js";
import { type Parser, type TypedTask, typed } from "./typed.js";

export type { components, paths } from "./schema.js";
export { ApiError } from "./errors.js";
export type { FieldError, ProblemCode, ProblemDetails } from "./errors.js";
export { NoDataError, dataAs, isEvent, typed } from "./typed.js";
export type { EventDataMap, EventType, Parser, TypedEvent, TypedTask } from "./typed.js";

type Schemas = components["schemas"];
export type TaskCreate = Schemas["TaskCreate"];
export type TaskOut = Schemas["TaskOut"];
export type TaskPage = Schemas["TaskPage"];
export type TaskStatus = Schemas["TaskStatus"];
export type StepList = Schemas["StepList"];
export type ProfileOut = Schemas["ProfileOut"];
export type EventOut = Schemas["EventOut"];
export type LedgerOut = Schemas["LedgerOut"];
export type ApprovalOut = Schemas["ApprovalOut"];
export type ArtifactOut = Schemas["ArtifactOut"];
export type DomainOut = Schemas["DomainOut"];
export type Forgotten = Schemas["Forgotten"];
export type GuideOut = Schemas["GuideOut"];
export type LiveInput = Schemas["LiveInput"];
export type LiveAccepted = Schemas["LiveAccepted"];

export const TERMINAL: readonly TaskStatus[] = ["succeeded", "failed", "cancelled", "timed_out"];

export interface ClientOptions {
  apiKey?: string;
  /** wait before reopening a dropped event stream */
  reconnectDelayMs?: number;
  /** reconnects in a row that receive nothing before events() gives up */
  maxReconnects?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const id = encodeURIComponent;

export class WebAgentClient {
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly reconnectDelayMs: number;
  private readonly maxReconnects: number;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.headers = options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {};
    this.reconnectDelayMs = options.reconnectDelayMs ?? 1000;
    this.maxReconnects = options.maxReconnects ?? 20;
  }

  private async request<T>(method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
    const headers: Record<string, string> = { ...this.headers, ...init.headers };
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    if (!response.ok) throw await errorFor(response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  submitTask(body: TaskCreate, options: { idempotencyKey?: string } = {}): Promise<TaskOut> {
    const headers: Record<string, string> = options.idempotencyKey ? { "Idempotency-Key": options.idempotencyKey } : {};
    return this.request("POST", "/v1/tasks", { body, headers });
  }

  getTask(taskId: string): Promise<TaskOut> {
    return this.request("GET", `/v1/tasks/${encodeURIComponent(taskId)}`);
  }

  /** Newest first; `next_cursor` pages on; `q` searches the instruction, start URL and answer. */
  listTasks(query: { status?: TaskStatus; domain?: string; limit?: number; cursor?: string; q?: string } = {}): Promise<TaskPage> {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
    const suffix = params.size ? `?${params}` : "";
    return this.request("GET", `/v1/tasks${suffix}`);
  }

  cancelTask(taskId: string): Promise<TaskOut> {
    return this.request("POST", `/v1/tasks/${encodeURIComponent(taskId)}/cancel`);
  }

  listSteps(taskId: string): Promise<StepList> {
    return this.request("GET", `/v1/tasks/${encodeURIComponent(taskId)}/steps`);
  }

  getLedger(taskId: string): Promise<LedgerOut> {
    return this.request("GET", `/v1/tasks/${id(taskId)}/ledger`);
  }

  /** A finished task and everything it kept (events, steps, artifacts); 409 while it runs. */
  deleteTask(taskId: string): Promise<void> {
    return this.request("DELETE", `/v1/tasks/${id(taskId)}`);
  }

  async listApprovals(taskId: string): Promise<ApprovalOut[]> {
    return (await this.request<Schemas["ApprovalList"]>("GET", `/v1/tasks/${id(taskId)}/approvals`)).items;
  }

  approve(taskId: string, approvalId: string): Promise<ApprovalOut> {
    return this.decide(taskId, approvalId, "approve");
  }

  deny(taskId: string, approvalId: string): Promise<ApprovalOut> {
    return this.decide(taskId, approvalId, "deny");
  }

  private decide(taskId: string, approvalId: string, decision: Schemas["ApprovalDecisionIn"]["decision"]): Promise<ApprovalOut> {
    return this.request("POST", `/v1/tasks/${id(taskId)}/approvals/${id(approvalId)}`, { body: { decision } });
  }

  listArtifacts(taskId: string): Promise<ArtifactOut[]> {
    return this.request("GET", `/v1/tasks/${id(taskId)}/artifacts`);
  }

  /** The artifact's bytes (a 307 to a signed URL is followed). */
  async downloadArtifact(taskId: string, artifactId: string): Promise<Uint8Array> {
    const response = await fetch(`${this.baseUrl}/v1/tasks/${id(taskId)}/artifacts/${id(artifactId)}`, { headers: this.headers });
    if (!response.ok) throw await errorFor(response);
    return new Uint8Array(await response.arrayBuffer());
  }

  /** What the service learned about a site; 404 when nothing. */
  getDomain(domain: string): Promise<DomainOut> {
    return this.request("GET", `/v1/domains/${id(domain)}`);
  }

  forgetDomain(domain: string): Promise<Forgotten> {
    return this.request("DELETE", `/v1/domains/${id(domain)}/learnings`);
  }

  async listGuides(): Promise<GuideOut[]> {
    return (await this.request<Schemas["GuideList"]>("GET", "/v1/guides")).guides;
  }

  /** Pause the agent before its next step; the live view's `control` message says when the
   * page is yours. */
  takeOver(taskId: string): Promise<LiveAccepted> {
    return this.request("POST", `/v1/tasks/${id(taskId)}/live/takeover`);
  }

  /** A click, scroll, key or whole text on the page while it is yours (409 before). Send the
   * next input after this one answered: inputs are applied in the order they arrive. */
  sendInput(taskId: string, input: LiveInput): Promise<LiveAccepted> {
    return this.request("POST", `/v1/tasks/${id(taskId)}/live/input`, { body: input });
  }

  handBack(taskId: string): Promise<LiveAccepted> {
    return this.request("POST", `/v1/tasks/${id(taskId)}/live/handback`);
  }

  createProfile(name: string): Promise<ProfileOut> {
    return this.request("POST", "/v1/profiles", { body: { name } });
  }

  async listProfiles(): Promise<ProfileOut[]> {
    return (await this.request<Schemas["ProfileList"]>("GET", "/v1/profiles")).items;
  }

  deleteProfile(name: string): Promise<void> {
    return this.request("DELETE", `/v1/profiles/${encodeURIComponent(name)}`);
  }

  /** Poll until the task has ended. */
  async waitTask(taskId: string, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<TaskOut> {
    const deadline = Date.now() + (options.timeoutMs ?? 300_000);
    for (;;) {
      const task = await this.getTask(taskId);
      if (TERMINAL.includes(task.status)) return task;
      if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status}`);
      await sleep(options.pollMs ?? 500);
    }
  }

  /** waitTask, then `result.data` checked by `parser` (a zod schema, or `{ parse }`);
   * `data` is null when the task ended without data. */
  async waitTyped<T>(taskId: string, parser: Parser<T>, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<TypedTask<T>> {
    return typed(await this.waitTask(taskId, options), parser);
  }

  /** Every event after seq `after` once, in order, until task.finished. A dropped stream is
   * reopened with Last-Event-ID; pass the last seq you saw as `after` to resume later. */
  async *events(taskId: string, options: { after?: number } = {}): AsyncGenerator<EventOut> {
    let last = options.after ?? 0;
    let attempts = 0;
    for (;;) {
      try {
        const headers: Record<string, string> = { ...this.headers, Accept: "text/event-stream" };
        if (last) headers["Last-Event-ID"] = String(last);
        const response = await fetch(`${this.baseUrl}/v1/tasks/${encodeURIComponent(taskId)}/events`, { headers });
        if (!response.ok) throw await errorFor(response);
        if (!response.body) throw new Error("event stream without a body");
        const alive = async function* (input: AsyncIterable<string>) {
          for await (const line of input) {
            attempts = 0;
            yield line;
          }
        };
        for await (const message of parseSSE(alive(lines(response.body)))) {
          const event = JSON.parse(message.data) as EventOut;
          if (event.seq <= last) continue;
          last = event.seq;
          yield event;
          if (event.type === "task.finished") return;
        }
      } catch (error) {
        if (error instanceof ApiError) throw error;
        attempts += 1;
        if (attempts > this.maxReconnects) throw error;
        await sleep(this.reconnectDelayMs);
        continue;
      }
      if (TERMINAL.includes((await this.getTask(taskId)).status)) return;
      await sleep(this.reconnectDelayMs);
    }
  }
}
