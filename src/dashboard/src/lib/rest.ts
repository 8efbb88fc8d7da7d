import { ApiError, refreshAccess, type FieldProblem } from "./api.ts";

/** An RFC 9457 problem document, as the REST routes answer errors. */
interface Problem {
  type?: string;
  title?: string;
  detail?: string;
  errors?: FieldProblem[];
}

/** `…/errors/payload-too-large` → `PAYLOAD_TOO_LARGE`, the code GraphQL would give the same error. */
function codeOf(problem: Problem, status: number): string {
  const slug = problem.type?.split("/").pop();
  if (slug && slug !== "about:blank") return slug.toUpperCase().replaceAll("-", "_");
  return status >= 500 ? "INTERNAL_SERVER_ERROR" : "GRAPHQL_VALIDATION_FAILED";
}

async function send(url: string, body: FormData): Promise<Response> {
  try {
    // Same origin, so the browser adds the access cookie and Sec-Fetch-Site: same-origin, which is
    // what the server's cross-site check asks of cookie-authenticated calls.
    return await fetch(url, { method: "POST", credentials: "same-origin", headers: { accept: "application/json" }, body });
  } catch {
    throw new ApiError("Check your connection; the upload did not reach Vessel.", "NETWORK", undefined);
  }
}

/**
 * Sends one file as `multipart/form-data` (the browser streams it; no base64, no size cap of the
 * GraphQL body) and reads the JSON answer. An expired access cookie is refreshed once, as GraphQL
 * calls do; the form is built anew for the retry because a sent body cannot be sent again.
 */
export async function postFile<T>(url: string, field: string, file: File): Promise<T> {
  const form = () => {
    const f = new FormData();
    f.append(field, file, file.name);
    return f;
  };
  let res = await send(url, form());
  if (res.status === 401 && (await refreshAccess())) res = await send(url, form());
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new ApiError(
      `The server answered ${res.status} ${res.statusText} without a readable body.`,
      res.status >= 500 ? "SERVICE_UNAVAILABLE" : "INTERNAL_SERVER_ERROR",
      res.status,
    );
  }
  if (res.ok) return body as T;
  const problem = (body ?? {}) as Problem;
  throw new ApiError(problem.detail ?? problem.title ?? `The server answered ${res.status}.`, codeOf(problem, res.status), res.status, problem.errors ?? []);
}
