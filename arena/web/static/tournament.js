// Live progress of a queued or running tournament: poll its JSON every two seconds,
// move the bar, and reload the standings (a server-rendered fragment) when games come in.
"use strict";

(function () {
  const section = document.getElementById("progress");
  if (!section || section.dataset.live !== "true") return;
  const id = section.dataset.tournamentId;
  const bar = document.getElementById("progress-bar");
  const text = document.getElementById("progress-text");
  const status = document.getElementById("status");
  const message = document.getElementById("status-message");
  const standings = document.getElementById("standings-area");
  const LIVE = ["pending", "queued", "claimed", "running"];
  let stored = Number(bar.value);

  async function poll() {
    const response = await fetch(`/api/tournaments/${id}`);
    if (!response.ok) return setTimeout(poll, 5000);
    const t = await response.json();
    bar.max = Math.max(t.scheduled, 1);
    bar.value = t.stored;
    text.textContent = `${t.stored} of ${t.scheduled} games stored`;
    status.innerHTML = "";
    const badge = document.createElement("span");
    badge.className = `status status-${t.status}`;
    badge.textContent = t.status;
    status.appendChild(badge);
    message.textContent = t.message || "";
    const finished = !LIVE.includes(t.status);
    if (t.stored !== stored || finished) {
      stored = t.stored;
      const fragment = await fetch(`/tournaments/${id}/standings`);
      if (fragment.ok) standings.innerHTML = await fragment.text();
    }
    if (finished) {
      section.dataset.live = "false";
      // The games list and the plot belong to the finished page.
      setTimeout(() => window.location.reload(), 500);
      return;
    }
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 1000);
})();
