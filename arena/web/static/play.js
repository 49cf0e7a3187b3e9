// A live game against bots. The server sends this seat's view after every step as
// server-sent events (nothing another seat holds); the legal actions become buttons:
// click one, or press its number (1–9), or move between them with the arrow keys and
// press Enter. A move is sent with the page's anti-CSRF token in a header.
"use strict";

(function () {
  const root = document.getElementById("play");
  const gameId = root.dataset.gameId;
  const mySeat = Number(root.dataset.seat);
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const board = document.getElementById("board");
  const status = document.getElementById("status");
  const actions = document.getElementById("actions");
  const moves = document.getElementById("moves");
  const errorBox = document.getElementById("play-error");
  const result = document.getElementById("result");
  const clock = document.getElementById("clock");
  const recent = document.getElementById("recent");
  let view = null;
  let clockTimer = null;
  let clockStart = 0;

  function player(seat) {
    const labels = document.querySelectorAll(".seat-label");
    return labels[seat] ? labels[seat].textContent : `seat ${seat}`;
  }

  function showClock() {
    if (!view || view.clock === null) {
      clock.hidden = true;
      return;
    }
    clock.hidden = false;
    const running = view.to_move === mySeat && !view.over;
    const left = Math.max(0, view.clock - (running ? (performance.now() - clockStart) / 1000 : 0));
    const minutes = Math.floor(left / 60);
    const seconds = Math.floor(left % 60).toString().padStart(2, "0");
    clock.textContent = `your clock: ${minutes}:${seconds}` + (running ? " (running)" : "");
  }

  // The moves since the person's own last move (the bots' answers), beside the table.
  function showRecent() {
    let start = view.moves.length;
    while (start > 0 && view.moves[start - 1][0] !== mySeat) start--;
    const others = view.moves.slice(start).map(([seat, action]) => `${player(seat)}: ${prettyCode(action)}`);
    recent.innerHTML = others.length ? cardsToHtml(others.join(" · ")) : "";
  }

  function showMoves() {
    for (let index = moves.children.length; index < view.moves.length; index++) {
      const [seat, action] = view.moves[index];
      const item = document.createElement("li");
      item.innerHTML = cardsToHtml(`${seat}: ${prettyCode(action)}`);
      if (seat === mySeat) item.classList.add("mine");
      moves.appendChild(item);
    }
  }

  function showActions() {
    const hadFocus = actions.contains(document.activeElement);
    actions.replaceChildren();
    if (!view.legal) return;
    view.legal.forEach((action, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "action-button";
      button.dataset.action = action;
      const key = index < 9 ? `<kbd>${index + 1}</kbd> ` : "";
      button.innerHTML = key + cardsToHtml(prettyCode(action));
      button.addEventListener("click", () => send(action, button));
      actions.appendChild(button);
    });
    if (hadFocus || document.activeElement === document.body) actions.firstChild.focus();
  }

  function show(data) {
    view = data;
    clockStart = performance.now();
    board.innerHTML = cardsToHtml(view.text);
    showMoves();
    showRecent();
    showActions();
    showClock();
    if (view.over) {
      status.textContent = view.error ? "the game stopped" : "game over";
      result.hidden = false;
      result.innerHTML = cardsToHtml(view.result || view.error || "");
      if (view.record_id !== null) {
        const link = document.createElement("a");
        link.href = `/records/${view.record_id}`;
        link.id = "replay-link";
        link.textContent = "replay this game";
        result.append(" · ", link);
      }
    } else if (view.legal) {
      status.textContent = `your move (${view.legal.length} legal)`;
    } else if (view.to_move !== null) {
      status.textContent = `${player(view.to_move)} to move…`;
    }
    root.dataset.version = String(view.version);
    root.dataset.toMove = view.to_move === null ? "" : String(view.to_move);
    root.dataset.over = String(view.over);
    if (view.over) resign.hidden = true;
  }

  async function send(action, button) {
    if (!view || !view.legal) return;
    for (const other of actions.querySelectorAll("button")) other.disabled = true;
    button.classList.add("chosen");
    errorBox.hidden = true;
    const response = await fetch(`/play/${gameId}/move`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify({ version: view.version, action: action }),
      credentials: "same-origin",
    });
    if (!response.ok) {
      const data = await response.json().catch(() => ({}));
      errorBox.hidden = false;
      errorBox.textContent = data.detail || `error ${response.status}`;
      for (const other of actions.querySelectorAll("button")) other.disabled = false;
    }
  }

  const resign = document.getElementById("resign");
  resign.addEventListener("click", async () => {
    if (!window.confirm("Resign this game? Your seat loses it.")) return;
    resign.disabled = true;
    errorBox.hidden = true;
    const response = await fetch(`/play/${gameId}/resign`, {
      method: "POST",
      headers: { "X-CSRF-Token": csrf },
      credentials: "same-origin",
    });
    if (!response.ok) {
      const data = await response.json().catch(() => ({}));
      errorBox.hidden = false;
      errorBox.textContent = data.detail || `error ${response.status}`;
      resign.disabled = false;
    }
  });

  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const buttons = Array.from(actions.querySelectorAll("button:not([disabled])"));
    if (buttons.length === 0) return;
    if (/^[1-9]$/.test(event.key)) {
      const button = buttons[Number(event.key) - 1];
      if (button) {
        event.preventDefault();
        button.click();
      }
      return;
    }
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (step) {
      event.preventDefault();
      const at = buttons.indexOf(document.activeElement);
      const next = at < 0 ? 0 : (at + step + buttons.length) % buttons.length;
      buttons[next].focus();
    }
  });

  const events = new EventSource(`/play/${gameId}/events`);
  events.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (view && data.version <= view.version) return;
    show(data);
    if (data.over) events.close();
  };
  events.onerror = () => {
    if (view && view.over) return;
    status.textContent = "reconnecting…";
  };
  clockTimer = setInterval(showClock, 250);
})();
