// Server-sent events: lines of a fetch body into (event, id, data) messages (SSE spec:
// comments and `retry:` skipped, an empty data buffer sends nothing).

export interface SSEMessage {
  event: string;
  id: string;
  data: string;
}

export async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r\n|\n|\r/)) >= 0) {
      const sep = buffer.startsWith("\r\n", end) ? 2 : 1;
      yield buffer.slice(0, end);
      buffer = buffer.slice(end + sep);
    }
  }
  if (buffer) yield buffer;
}

export async function* parseSSE(input: AsyncIterable<string>): AsyncGenerator<SSEMessage> {
  let event = "message";
  let id = "";
  let data: string[] = [];
  for await (const line of input) {
    if (line === "") {
      if (data.length) yield { event, id, data: data.join("\n") };
      event = "message";
      id = "";
      data = [];
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "id") id = value;
    else if (field === "data") data.push(value);
  }
}
