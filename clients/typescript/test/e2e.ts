// Drives a task end to end against a running service; tests/e2e/test_sdk_typescript_e2e.py
// runs it (compiled by tsc) and checks what it prints: one JSON object.
import { ApiError, WebAgentClient, type EventOut } from "../src/index.js";

const [baseUrl, startUrl, instruction] = process.argv.slice(2);
const FIRST_PART = 3;

async function main(): Promise<void> {
  const client = new WebAgentClient(baseUrl);
  const task = await client.submitTask({ instruction, start_url: startUrl }, { idempotencyKey: "sdk-ts-1" });
  const first: EventOut[] = [];
  for await (const event of client.events(task.id)) {
    first.push(event);
    if (first.length === FIRST_PART) break; // let go of the stream mid-run
  }
  const rest: EventOut[] = [];
  for await (const event of client.events(task.id, { after: first[first.length - 1].seq })) rest.push(event);
  const done = await client.waitTask(task.id, { timeoutMs: 60_000 });
  const full: EventOut[] = [];
  for await (const event of client.events(task.id)) full.push(event);
  const steps = await client.listSteps(task.id);
  const listed = (await client.listTasks({ status: "succeeded", domain: "127.0.0.1" })).items.map((t) => t.id);
  const refused = async (call: () => Promise<unknown>): Promise<ApiError | null> => {
    try {
      await call();
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
    return null;
  };
  const conflict = await refused(() => client.cancelTask(task.id));
  await client.createProfile("sdk-ts-profile");
  const profilesBefore = (await client.listProfiles()).map((p) => p.name);
  await client.deleteProfile("sdk-ts-profile");
  const profilesAfter = (await client.listProfiles()).map((p) => p.name);
  const missing = await refused(() => client.getTask("no-such-task"));
  const invalid = await refused(() => client.createProfile("not a valid name!"));
  const seqs = (events: EventOut[]) => events.map((e) => [e.seq, e.type]);
  console.log(
    JSON.stringify({
      id: task.id,
      first: seqs(first),
      rest: seqs(rest),
      full: seqs(full),
      status: done.status,
      answer: done.result?.answer ?? null,
      listed: listed.includes(task.id),
      conflict: conflict && { status: conflict.status, code: conflict.code },
      profiles: [profilesBefore.includes("sdk-ts-profile"), profilesAfter.includes("sdk-ts-profile")],
      steps: steps.steps.map((s) => s.action?.action ?? null),
      missing: missing && { status: missing.status, code: missing.code, instance: missing.problem?.instance },
      invalid: invalid && { status: invalid.status, code: invalid.code, locs: invalid.errors.map((e) => e.loc) },
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
