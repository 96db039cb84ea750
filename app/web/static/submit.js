// Submit form: POST /v1/tasks with the fields that were filled in, then open the run page.
// A 422 from the API is shown next to the field it names.
"use strict";

(() => {
  const form = document.getElementById("submit-form");
  if (!form) return;
  const NUMBERS = ["max_steps", "timeout_s", "max_tokens", "max_cost_usd", "approval_timeout_s"];
  const CHOICES = ["approval_policy", "task_profile"];

  function fieldError(name, text) {
    const slot = document.getElementById("err-" + name);
    if (slot) {
      slot.textContent = text;
      const input = document.getElementById(name);
      if (input) input.setAttribute("aria-invalid", text ? "true" : "false");
      return true;
    }
    return false;
  }

  function clearErrors() {
    for (const slot of form.querySelectorAll(".field-error")) slot.textContent = "";
    for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
    document.getElementById("form-error").textContent = "";
  }

  function value(name) {
    const input = form.elements.namedItem(name);
    return input ? input.value.trim() : "";
  }

  function body() {
    const out = { instruction: value("instruction") };
    if (value("start_url")) out.start_url = value("start_url");
    for (const name of NUMBERS) {
      if (value(name)) out[name] = Number(value(name));
    }
    for (const name of CHOICES) {
      if (value(name)) out[name] = value(name);
    }
    const domains = value("allowed_domains");
    if (domains) out.allowed_domains = domains.split(/[\s,]+/).filter(Boolean);
    if (value("profile")) out.profile = value("profile");
    const secrets = {};
    for (const row of form.querySelectorAll(".secret-row")) {
      const name = row.querySelector(".secret-name").value.trim();
      const secret = row.querySelector(".secret-value").value;
      if (name && secret) secrets[name] = secret;
      else if (name || secret) throw { field: "secrets", message: "Give each secret a name and a value." };
    }
    if (Object.keys(secrets).length) out.secrets = secrets;
    if (value("webhook_url")) {
      out.webhook_url = value("webhook_url");
      const chosen = [...form.querySelectorAll(".webhook-event:checked")].map((box) => box.value);
      if (chosen.length) out.webhook_events = [...chosen, "task.finished"];
    }
    if (value("output_schema")) {
      try {
        out.output_schema = JSON.parse(value("output_schema"));
      } catch (err) {
        throw { field: "output_schema", message: "Not valid JSON: " + err.message };
      }
    }
    return out;
  }

  function showProblem(status, problem) {
    // RFC 9457 problem details (app/api/problems.py); a 422 lists `errors` by field
    if (status === 422 && Array.isArray(problem.errors)) {
      for (const item of problem.errors) {
        const loc = item.loc || [];
        const field = loc[0] === "body" ? loc[1] : null;
        if (!field || !fieldError(String(field), item.msg)) {
          document.getElementById("form-error").textContent = item.msg;
        }
      }
      return;
    }
    const text = typeof problem.detail === "string" ? problem.detail : "";
    document.getElementById("form-error").textContent = "HTTP " + status + (text ? ": " + text : "");
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors();
    if (!value("instruction")) {
      fieldError("instruction", "Say what the agent should do.");
      document.getElementById("instruction").focus();
      return;
    }
    let payload;
    try {
      payload = body();
    } catch (problem) {
      fieldError(problem.field, problem.message);
      return;
    }
    const button = document.getElementById("submit");
    button.disabled = true;
    try {
      const response = await fetch("/v1/tasks", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Webagent-Viewer": "1" },
        body: JSON.stringify(payload),
        credentials: "same-origin",
      });
      const answer = await response.json().catch(() => ({}));
      if (response.status === 202 && answer.id) {
        window.location.assign("/runs/" + encodeURIComponent(answer.id));
        return;
      }
      showProblem(response.status, answer);
    } catch (err) {
      document.getElementById("form-error").textContent = "Request failed: " + err;
    }
    button.disabled = false;
  });
})();
