// Live ladder standings on a game's page: while a ladder runs, reload its section (a
// server-rendered fragment) every five seconds; the workers refit as they store games.
"use strict";

(function () {
  const area = document.getElementById("ladders-area");
  if (!area || area.dataset.live !== "true") return;
  const game = area.dataset.game;

  async function poll() {
    const response = await fetch(`/games/${encodeURIComponent(game)}/ladders`);
    if (response.ok) {
      area.innerHTML = await response.text();
      const running = area.querySelector(".status-running");
      if (!running) return;
    }
    setTimeout(poll, 5000);
  }
  setTimeout(poll, 5000);
})();
