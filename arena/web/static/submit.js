// The submission forms: send the bot (multipart) or the tournament configuration
// (TOML) to the API with the token as a bearer token, and show the answer.
"use strict";

(function () {
  const tokenInput = document.getElementById("token");
  const remember = document.getElementById("remember");
  const KEY = "arena-token";
  const saved = window.localStorage.getItem(KEY);
  if (saved) {
    tokenInput.value = saved;
    remember.checked = true;
  }

  function token() {
    const value = tokenInput.value.trim();
    if (remember.checked) window.localStorage.setItem(KEY, value);
    else window.localStorage.removeItem(KEY);
    return value;
  }

  function report(box, ok, text, link) {
    box.replaceChildren();
    const paragraph = document.createElement("p");
    paragraph.className = ok ? "ok" : "error";
    paragraph.textContent = text;
    if (link) {
      paragraph.append(" ");
      const anchor = document.createElement("a");
      anchor.href = link.href;
      anchor.textContent = link.text;
      paragraph.appendChild(anchor);
    }
    box.appendChild(paragraph);
  }

  async function send(url, options) {
    const response = await fetch(url, { ...options, headers: { ...options.headers, Authorization: `Bearer ${token()}` } });
    let data = {};
    try {
      data = await response.json();
    } catch (error) {
      data = { detail: `error ${response.status}` };
    }
    if (response.status === 429) {
      data.detail = `${data.detail} (Retry-After: ${response.headers.get("Retry-After")} s)`;
    }
    return { response, data };
  }

  const kinds = document.querySelectorAll("input[name=kind]");
  for (const radio of kinds) {
    radio.addEventListener("change", () => {
      const archive = document.querySelector("input[name=kind]:checked").value === "archive";
      document.getElementById("python-fields").hidden = archive;
      document.getElementById("archive-fields").hidden = !archive;
    });
  }

  const botForm = document.getElementById("bot-form");
  const botResult = document.getElementById("bot-result");
  botForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const archive = document.querySelector("input[name=kind]:checked").value === "archive";
    const form = new FormData();
    form.append("name", document.getElementById("bot-name").value.trim());
    form.append("game", document.getElementById("bot-game").value);
    if (archive) {
      const file = document.getElementById("bot-archive").files[0];
      if (file) form.append("archive", file);
      form.append("command", document.getElementById("bot-command").value);
    } else {
      const file = document.getElementById("bot-file").files[0];
      if (file) form.append("file", file);
      const className = document.getElementById("bot-class").value.trim();
      if (className) form.append("class_name", className);
      const params = document.getElementById("bot-params").value.trim();
      if (params) form.append("params", params);
    }
    const button = document.getElementById("bot-submit");
    button.disabled = true;
    report(botResult, true, "checking the bot in the sandbox…");
    try {
      const { response, data } = await send("/api/bots", { method: "POST", body: form });
      if (response.ok) {
        const bot = data.bot;
        const what = data.created ? `registered ${bot.label}` : `unchanged: ${bot.label} already has this code`;
        const check = [data.check, data.warning && `warning: ${data.warning}`].filter(Boolean).join("; ");
        report(botResult, true, `${what}. ${check}`, { href: `/bots/${encodeURIComponent(bot.label)}`, text: "bot page" });
      } else {
        report(botResult, false, data.detail || `error ${response.status}`);
      }
    } finally {
      button.disabled = false;
    }
  });

  const tournamentForm = document.getElementById("tournament-form");
  const tournamentResult = document.getElementById("tournament-result");
  tournamentForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const { response, data } = await send("/api/tournaments", {
      method: "POST",
      headers: { "Content-Type": "application/toml" },
      body: document.getElementById("tournament-config").value,
    });
    if (response.ok) {
      report(tournamentResult, true, `queued tournament ${data.id}: ${data.name}.`, { href: `/tournaments/${data.id}`, text: "follow it" });
    } else {
      report(tournamentResult, false, data.detail || `error ${response.status}`);
    }
  });
})();
