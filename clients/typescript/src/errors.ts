// The service's error bodies (RFC 9457 problem details) as one typed exception.
import type { components } from "./schema.js";

export type ProblemDetails = components["schemas"]["ProblemDetails"];
export type ProblemCode = components["schemas"]["ProblemCode"];
export type FieldError = components["schemas"]["FieldError"];

/** The service refused the request (4xx/5xx). `code` is the problem's stable code ("" when the
 * body was not a problem), `errors` the refused fields of a 422, `retryAfter` the seconds of a
 * Retry-After header (429, 503). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ProblemCode | "";
  readonly problem: ProblemDetails | null;
  readonly errors: FieldError[];
  readonly retryAfter: number | null;

  constructor(status: number, problem: ProblemDetails | null, text: string, retryAfter: number | null) {
    super(`${status}: ${summary(problem, text)}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
    this.code = problem?.code ?? "";
    this.errors = problem?.errors ?? [];
    this.retryAfter = retryAfter;
  }
}

function summary(problem: ProblemDetails | null, text: string): string {
  if (!problem) return text.slice(0, 200);
  if (problem.errors?.length) {
    return problem.errors.map((e) => `${e.loc.join(".")}: ${e.msg}`).join("; ");
  }
  return problem.detail;
}

export async function errorFor(response: Response): Promise<ApiError> {
  const text = await response.text();
  let problem: ProblemDetails | null = null;
  try {
    const body = JSON.parse(text) as Partial<ProblemDetails>;
    if (body && typeof body.code === "string" && typeof body.detail === "string") {
      problem = body as ProblemDetails;
    }
  } catch {
    problem = null;
  }
  const header = response.headers.get("Retry-After");
  const retryAfter = header !== null && !Number.isNaN(Number(header)) ? Number(header) : null;
  return new ApiError(response.status, problem, text, retryAfter);
}
