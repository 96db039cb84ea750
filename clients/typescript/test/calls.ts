// The calls beyond submit/get/list/events/cancel (issue 37 item 3), each against a running
// service; tests/e2e/test_sdk_typescript_calls_e2e.py runs it (compiled by tsc), answers its
// cues on stdin (the challenge page solved or not) and checks the JSON lines it prints.
import { createInterface } from "node:readline";
import { ApiError, NoDataError, WebAgentClient, dataAs, isEvent, type Parser } from "../src/index.js";

const [baseUrl, protectedUrl, shopUrl, members, typedInstruction] = process.argv.slice(2);
const cues = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const say = (message: object) => console.log(JSON.stringify(message));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SCHEMA = {
  type: "object",
  properties: { name: { type: "string" }, price: { type: "string" } },
  required: ["name", "price"],
};

interface Product {
  name: string;
  price: string;
}

// a hand-written parser; a zod schema (z.object({...})) fits the same place
const product: Parser<Product> = {
  parse(data: unknown): Product {
    const d = data as Record<string, unknown>;
    if (typeof d?.name !== "string" || typeof d?.price !== "string") throw new Error("not a Product");
    return { name: d.name, price: d.price };
  },
};

async function refused(call: () => Promise<unknown>): Promise<{ status: number; code: string } | null> {
  try {
    await call();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code };
    throw error;
  }
  return null;
}

async function pending(client: WebAgentClient, taskId: string): Promise<string> {
  for (let tries = 0; tries < 600; tries++) {
    const open = (await client.listApprovals(taskId)).filter((a) => a.status === "pending");
    if (open.length) return open[0].id;
    await sleep(100);
  }
  throw new Error(`no pending approval on ${taskId}`);
}

async function approveAndKeep(client: WebAgentClient) {
  const task = await client.submitTask({ instruction: members, start_url: protectedUrl });
  const approvalId = await pending(client, task.id);
  say({ cue: "solve" });
  await cues.next(); // the page is solved now
  const decided = await client.approve(task.id, approvalId);
  const done = await client.waitTask(task.id, { timeoutMs: 60_000 });
  const artifacts = await client.listArtifacts(task.id);
  const shot = artifacts.find((a) => a.kind === "screenshot" || a.kind === "approval");
  const body = shot ? await client.downloadArtifact(task.id, shot.id) : new Uint8Array();
  const found = (await client.listTasks({ q: "MEMBERS area" })).items.map((t) => t.id);
  const ledger = await client.getLedger(task.id);
  let calls = 0;
  let tokens = 0;
  for await (const event of client.events(task.id)) {
    if (isEvent(event, "llm.call")) {
      calls += 1;
      tokens += event.data.input_tokens; // typed: EventData_llm_call
    }
  }
  let noData = "";
  try {
    dataAs(done, product);
  } catch (error) {
    if (error instanceof NoDataError) noData = error.name;
  }
  await client.deleteTask(task.id);
  return {
    decided: decided.status,
    status: done.status,
    kinds: [...new Set(artifacts.map((a) => a.kind))].sort(),
    bytes: body.length === shot?.size ? Array.from(body.slice(0, 2)) : null,
    found: found.includes(task.id),
    ledger: ledger.task_id === task.id && ledger.steps.length > 0,
    calls: calls === done.usage.llm_calls && tokens > 0,
    noData,
    gone: await refused(() => client.getTask(task.id)),
  };
}

async function deny(client: WebAgentClient) {
  say({ cue: "unsolve" });
  await cues.next(); // the page shows its challenge again
  const task = await client.submitTask({ instruction: members, start_url: protectedUrl });
  const decided = await client.deny(task.id, await pending(client, task.id));
  const done = await client.waitTask(task.id, { timeoutMs: 60_000 });
  // the live calls reach their routes: a finished task is not live (409, not a 404)
  const live = [
    await refused(() => client.takeOver(task.id)),
    await refused(() => client.sendInput(task.id, { kind: "text", text: "hi" })),
    await refused(() => client.handBack(task.id)),
  ];
  return { decided: decided.status, status: done.status, error: done.error, live };
}

async function typedData(client: WebAgentClient) {
  const task = await client.submitTask({ instruction: typedInstruction, start_url: shopUrl, output_schema: SCHEMA });
  const result = await client.waitTyped(task.id, product, { timeoutMs: 60_000 });
  let misfit = "";
  try {
    dataAs(result.task, { parse: () => { throw new Error("does not fit"); } });
  } catch (error) {
    misfit = (error as Error).message;
  }
  return { status: result.task.status, data: result.data, misfit };
}

async function domains(client: WebAgentClient) {
  let known = 0;
  try {
    const memory = await client.getDomain("127.0.0.1");
    known = memory.learnings.length + memory.dead_ends.length;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
  }
  const forgotten = await client.forgetDomain("127.0.0.1");
  const after = await refused(() => client.getDomain("127.0.0.1"));
  const guides = await client.listGuides();
  return { domain: forgotten.domain, removedAll: forgotten.removed >= known, after, guides: Array.isArray(guides) };
}

async function main(): Promise<void> {
  const client = new WebAgentClient(baseUrl);
  const approved = await approveAndKeep(client);
  const denied = await deny(client);
  const typed = await typedData(client);
  say({ approved, denied, typed, domains: await domains(client) });
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
